import { Body, Controller, HttpCode, HttpException, Param, ParseUUIDPipe, Post } from '@nestjs/common';
import {
  ApiBody,
  ApiConflictResponse,
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { RESULTS_BODY_LIMIT, type SweepReportsResponse, type SweepWorkItem } from '@certkeeper/domain/protocol';
import type { ScannerPrincipal } from '../../common/auth/principal';
import { CurrentScanner, ScannerOnly } from '../../common/auth/route-access';
import { AcceptsBody } from '../../common/http/body-parsing';
import { type CheckedReport, SweepReportsRequestDto, SweepReportsResponseDto, SweepWorkItemDto } from './sweep-protocol.dto';
import { SweepReportsPipe } from './sweep-reports.pipe';
import { SweepsService } from '../discovery/sweeps.service';

const plainText = (description: string) => ({ description, content: { 'text/plain': { schema: { type: 'string' } } } });

/** The discovery half of the scanner protocol (docs/api-contract.md section 8): scanner tokens only. */
@ApiTags('scanner protocol')
@Controller('scanner')
export class SweepProtocolController {
  constructor(private readonly sweeps: SweepsService) {}

  @Post('sweeps/:id/start')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Claim a queued sweep',
    description:
      'Scanner token only. The agent claims a sweep listed in `GET /api/v1/scanner/work` before probing: it becomes `running`, with ' +
      "the network's current ranges and ports, which the answer carries and which the sweep's findings must stay within.",
  })
  @ScannerOnly()
  @ApiOkResponse({ type: SweepWorkItemDto, description: 'The sweep to run now.' })
  @ApiForbiddenResponse(plainText('The sweep belongs to another scanner.'))
  @ApiNotFoundResponse(plainText('No sweep has this id.'))
  @ApiConflictResponse(plainText('The sweep is not queued any more: another agent claimed it, or it failed.'))
  async startSweep(@CurrentScanner() scanner: ScannerPrincipal, @Param('id', ParseUUIDPipe) id: string): Promise<SweepWorkItem> {
    const claimed = await this.sweeps.claim(scanner.scannerId, id);
    if (claimed.ok) return claimed.work;
    throw httpErrorFor(claimed.refusal);
  }

  @Post('sweep-reports')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Report sweep progress and findings',
    description:
      'Scanner token only. Each report is applied on its own: `accepted`, `duplicate` (its `reportId` was applied before) or ' +
      '`rejected` with a code: 400 a malformed report (the error names each field, a finding by its place) or a finding outside ' +
      "the sweep's ranges and ports (nothing of that report is kept), 403 a sweep of " +
      'another scanner, 404 no such sweep, 409 the sweep is not running any more (the agent stops sweeping it). Progress is absolute ' +
      'and never moves backwards; certificates are parsed here and stored in the global store.',
  })
  @ScannerOnly()
  @AcceptsBody({ limit: RESULTS_BODY_LIMIT })
  @ApiBody({ type: SweepReportsRequestDto })
  @ApiOkResponse({ type: SweepReportsResponseDto, description: 'One outcome per report; a rejected report never blocks the others.' })
  async postSweepReports(
    @CurrentScanner() scanner: ScannerPrincipal,
    @Body(SweepReportsPipe) reports: CheckedReport[],
  ): Promise<SweepReportsResponse> {
    const applied = await this.sweeps.applyReports(
      scanner.scannerId,
      reports.flatMap((item) => (item.valid ? [item.report] : [])),
    );
    return {
      reports: reports.map((item) =>
        item.valid
          ? applied.shift()!
          : { reportId: item.reportId, sweepId: item.sweepId, status: 'rejected', code: 400, error: item.error },
      ),
    };
  }
}

function httpErrorFor(refusal: { code: 400 | 403 | 404 | 409; error: string }): Error {
  const message = `${refusal.error.charAt(0).toUpperCase()}${refusal.error.slice(1)}.`;
  return new HttpException(message, refusal.code);
}
