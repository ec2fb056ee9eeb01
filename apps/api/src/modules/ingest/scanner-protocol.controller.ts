import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiBody, ApiExtraModels, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { ResultsResponse, ScannerConfig, WorkResponse } from '@certkeeper/domain';
import type { ScannerPrincipal } from '../../common/auth/principal';
import { CurrentScanner, ScannerOnly } from '../../common/auth/route-access';
import {
  HostScanResultDto,
  HostWorkItemDto,
  ResultsRequestDto,
  ResultsResponseDto,
  SamlScanResultDto,
  SamlWorkItemDto,
  ScannerConfigDto,
  WorkQueryDto,
  WorkResponseDto,
} from './ingest.dto';
import { IngestService } from './ingest.service';

/** The scanner protocol: scanner tokens only (CONTRACT section 2). */
@ApiTags('scanner protocol')
@ApiExtraModels(HostWorkItemDto, SamlWorkItemDto, HostScanResultDto, SamlScanResultDto)
@Controller('scanner')
export class ScannerProtocolController {
  constructor(private readonly ingest: IngestService) {}

  @Get('config')
  @ScannerOnly()
  @ApiOkResponse({ type: ScannerConfigDto, description: "The calling scanner's own configuration; agents re-read it periodically." })
  getScannerConfig(@CurrentScanner() scanner: ScannerPrincipal): Promise<ScannerConfig> {
    return this.ingest.configOf(scanner.scannerId);
  }

  @Get('work')
  @ScannerOnly()
  @ApiOkResponse({ type: WorkResponseDto, description: 'Enabled, not scan-exempt host and saml endpoints assigned to the caller.' })
  async getScannerWork(@CurrentScanner() scanner: ScannerPrincipal, @Query() query: WorkQueryDto): Promise<WorkResponse> {
    return { items: await this.ingest.workOf(scanner.scannerId, query.neverScanned ?? false) };
  }

  @Post('results')
  @HttpCode(200)
  @ScannerOnly()
  @ApiBody({ type: ResultsRequestDto })
  @ApiOkResponse({ type: ResultsResponseDto, description: 'One outcome per result; a rejected result never blocks the others.' })
  async postScannerResults(@CurrentScanner() scanner: ScannerPrincipal, @Body() body: unknown): Promise<ResultsResponse> {
    return { results: await this.ingest.ingestResults(scanner.scannerId, body) };
  }
}
