import { ApiProperty } from '@nestjs/swagger';
import { ListWindowQueryDto } from '../../common/http/pagination';
import { SWEEP_STATUSES } from './sweep.entity';

export class SweepResponseDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) networkId!: string;
  @ApiProperty({ format: 'uuid', type: String, nullable: true, description: 'The scanner whose agent runs it; null once it was deleted.' })
  scannerId!: string | null;
  @ApiProperty({ enum: SWEEP_STATUSES }) status!: (typeof SWEEP_STATUSES)[number];
  @ApiProperty({ format: 'date-time' }) requestedAt!: string;
  @ApiProperty({ format: 'date-time', type: String, nullable: true }) startedAt!: string | null;
  @ApiProperty({ format: 'date-time', type: String, nullable: true }) finishedAt!: string | null;
  @ApiProperty({ type: 'integer', description: 'Addresses in the network (when queued) or in what the agent was given (once running).' })
  addressesTotal!: number;
  @ApiProperty({ type: 'integer', description: 'Addresses whose every port was probed; grows while the sweep runs.' })
  addressesProbed!: number;
  @ApiProperty({ type: 'integer', description: 'TLS services reported so far.' }) servicesFound!: number;
  @ApiProperty({ type: String, nullable: true, description: 'Why a failed sweep failed; null otherwise.' }) error!: string | null;
}

export class SweepListQueryDto extends ListWindowQueryDto {}
