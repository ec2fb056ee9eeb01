import { Controller, Get, HttpCode, Param, ParseUUIDPipe, Post, Query, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiConflictResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { RequirePermission } from '../../common/auth/route-access';
import { setTotalCount } from '../../common/http/pagination';
import { TOTAL_COUNT_HEADERS } from '../../common/http/response-headers';
import { Actor } from '../audit/actor.decorator';
import type { ActorContext } from '../audit/audit.service';
import { SweepListQueryDto, SweepResponseDto } from './sweeps.dto';
import { toSweepResponse } from './sweeps.mapper';
import { SweepsService } from './sweeps.service';

const SWEEP =
  'A sweep probes every (address, port) of the network from its scanner: a TCP connect with a short deadline, then a TLS handshake ' +
  "(SNI: the address's reverse-DNS name when it has one). `addressesProbed` grows while it runs; a running sweep whose agent says " +
  'nothing for 15 minutes fails, as do the sweeps of a deleted scanner.';

@ApiTags('discovery')
@Controller('discovery')
export class SweepsController {
  constructor(private readonly sweeps: SweepsService) {}

  @Post('networks/:id/sweeps')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Sweep a network now',
    description:
      "Needs `discovery:edit`. Queues a sweep for the network's scanner, whose agent picks it up within a minute. " +
      SWEEP +
      ' 404 for an unknown network; 409 while a sweep of it is queued or running, or when it has no scanner.',
  })
  @RequirePermission('discovery:edit')
  @ApiAcceptedResponse({ type: SweepResponseDto, description: 'The queued sweep.' })
  @ApiConflictResponse({ description: 'A sweep is already queued or running, or the network has no scanner.' })
  async requestSweep(@Param('id', ParseUUIDPipe) id: string, @Actor() actor: ActorContext): Promise<SweepResponseDto> {
    return toSweepResponse(await this.sweeps.requestSweep(id, actor));
  }

  @Get('networks/:id/sweeps')
  @ApiOperation({
    summary: "List a network's sweeps",
    description:
      'Needs `discovery:view`. Newest first. A bare array: `limit` 1 to 5000 (default 500) and `offset` choose the window, ' +
      '`X-Total-Count` gives the number of sweeps. 404 for an unknown network.',
  })
  @RequirePermission('discovery:view')
  @ApiOkResponse({ type: [SweepResponseDto], headers: TOTAL_COUNT_HEADERS })
  async listSweeps(
    @Param('id', ParseUUIDPipe) id: string,
    @Query() query: SweepListQueryDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<SweepResponseDto[]> {
    const { rows, total } = await this.sweeps.listSweeps(id, query);
    setTotalCount(res, total);
    return rows.map(toSweepResponse);
  }

  @Get('sweeps/:id')
  @ApiOperation({ summary: 'Get a sweep', description: `Needs \`discovery:view\`. ${SWEEP} 404 for an unknown id.` })
  @RequirePermission('discovery:view')
  @ApiOkResponse({ type: SweepResponseDto })
  async getSweep(@Param('id', ParseUUIDPipe) id: string): Promise<SweepResponseDto> {
    return toSweepResponse(await this.sweeps.getSweep(id));
  }
}
