import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiBody, ApiExtraModels, ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import {
  MAX_WORK_WAIT_SECONDS,
  RESULTS_BODY_LIMIT,
  type ResultsResponse,
  type ScannerConfig,
  type WorkResponse,
} from '@certkeeper/domain/protocol';
import type { ScannerPrincipal } from '../../common/auth/principal';
import { CurrentScanner, ScannerOnly } from '../../common/auth/route-access';
import { AcceptsBody } from '../../common/http/body-parsing';
import {
  type CheckedResult,
  HostScanResultDto,
  HostWorkItemDto,
  ResultsRequestDto,
  ResultsResponseDto,
  SamlScanResultDto,
  SamlWorkItemDto,
  ScannerConfigDto,
  WorkQueryDto,
  WorkResponseDto,
} from './scanner-protocol.dto';
import { SweepWorkItemDto } from './sweep-protocol.dto';
import { SweepsService } from '../discovery/sweeps.service';
import { AgentWorkService } from './agent-work.service';
import { ScanResultsService } from './scan-results.service';
import { ScanResultsPipe } from './scan-results.pipe';

/** The scanner protocol: scanner tokens only (docs/api-contract.md section 2). */
@ApiTags('scanner protocol')
@ApiExtraModels(HostWorkItemDto, SamlWorkItemDto, HostScanResultDto, SamlScanResultDto, SweepWorkItemDto)
@Controller('scanner')
export class ScannerProtocolController {
  constructor(
    private readonly work: AgentWorkService,
    private readonly results: ScanResultsService,
    private readonly sweeps: SweepsService,
  ) {}

  @Get('config')
  @ApiOperation({
    summary: "Get the calling scanner's configuration",
    description:
      'Scanner token only (user tokens and API keys get 403). ' +
      "The calling scanner's id, name, default flag, scan schedule and concurrency; agents re-read it periodically.",
  })
  @ScannerOnly()
  @ApiOkResponse({ type: ScannerConfigDto, description: "The calling scanner's own configuration; agents re-read it periodically." })
  async getScannerConfig(@CurrentScanner() scanner: ScannerPrincipal): Promise<ScannerConfig> {
    const [config, discoveryNetworks] = await Promise.all([
      this.work.configOf(scanner.scannerId),
      this.sweeps.rangesSweptBy(scanner.scannerId),
    ]);
    return { ...config, discoveryNetworks };
  }

  @Get('work')
  @ApiOperation({
    summary: "Get the calling scanner's work",
    description:
      'Scanner token only. ' +
      'The enabled, not scan-exempt host and saml endpoints assigned to the caller (and, for the default scanner, those with no ' +
      'scanner), each host with whether its TLS profile is due. `neverScanned=true` keeps only the work due now: endpoints never ' +
      'scanned yet and those with a pending scan request (`POST /api/v1/endpoints/{id}/scan`). With it, `wait` (seconds, at most ' +
      `${MAX_WORK_WAIT_SECONDS}) makes the request a long-poll: when nothing is due the answer is held until something is (on any API ` +
      'replica) or the wait ends, and is then empty. ' +
      '`sweeps`: the queued discovery sweeps of networks assigned to the caller, oldest first, whatever `neverScanned` says; the ' +
      'agent claims one with `POST /api/v1/scanner/sweeps/{id}/start`.',
  })
  @ScannerOnly()
  @ApiOkResponse({ type: WorkResponseDto, description: 'Enabled, not scan-exempt host and saml endpoints assigned to the caller.' })
  async getScannerWork(@CurrentScanner() scanner: ScannerPrincipal, @Query() query: WorkQueryDto): Promise<WorkResponse> {
    const [items, sweeps] = await Promise.all([
      this.work.workOf(scanner.scannerId, query.neverScanned ?? false, Math.round((query.wait ?? 0) * 1000)),
      this.sweeps.queuedFor(scanner.scannerId),
    ]);
    return { items, sweeps };
  }

  @Post('results')
  @ApiOperation({
    summary: 'Report scan results',
    description:
      'Scanner token only. ' +
      'Up to 1000 results per request, each checked and applied on its own: its outcome is `accepted`, `duplicate` (its `resultId` was ' +
      'seen before, so posting again is safe) or `rejected` with a code (400 malformed, 403 endpoint not assigned to this scanner, 404 ' +
      'unknown endpoint). The API parses the certificates and metadata itself, SAML metadata on a worker thread; when too many ' +
      'documents already wait for it the whole post is answered 503, and the agent posts the batch again later.',
  })
  @HttpCode(200)
  @ScannerOnly()
  @AcceptsBody({ limit: RESULTS_BODY_LIMIT })
  @ApiBody({ type: ResultsRequestDto })
  @ApiOkResponse({ type: ResultsResponseDto, description: 'One outcome per result; a rejected result never blocks the others.' })
  @ApiServiceUnavailableResponse({
    description:
      'Too many SAML metadata documents wait to be parsed; post the same batch again later (results already applied come back as duplicates).',
    content: { 'text/plain': { schema: { type: 'string' } } },
  })
  async postScannerResults(
    @CurrentScanner() scanner: ScannerPrincipal,
    @Body(ScanResultsPipe) results: CheckedResult[],
  ): Promise<ResultsResponse> {
    return { results: await this.results.ingestResults(scanner.scannerId, results) };
  }
}
