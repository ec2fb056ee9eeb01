import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { Public } from '../../common/auth/route-access';
import { DatabaseHealth } from '../../database/database-health';

const DATABASE_PROBE_DEADLINE_MS = 2000;

export class HealthResponseDto {
  @ApiProperty({ enum: ['ok'] }) status!: 'ok';
  @ApiProperty({ enum: ['up'] }) database!: 'up';
}

@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(private readonly database: DatabaseHealth) {}

  @Get()
  @ApiOperation({
    summary: 'Check that the service is up',
    description:
      'Public, for load balancers and orchestrators. 200 when the API runs and its database answers within 2 seconds; 503 otherwise.',
  })
  @Public()
  @ApiOkResponse({ type: HealthResponseDto })
  @ApiServiceUnavailableResponse({ description: 'The database is unreachable.', content: { 'text/plain': { schema: { type: 'string' } } } })
  async getHealth(): Promise<HealthResponseDto> {
    if (!(await this.database.isReachable(DATABASE_PROBE_DEADLINE_MS))) throw new ServiceUnavailableException('Database unreachable.');
    return { status: 'ok', database: 'up' };
  }
}
