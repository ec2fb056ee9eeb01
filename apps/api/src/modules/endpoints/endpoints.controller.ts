import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  ParseUUIDPipe,
  Patch,
  Post,
  Put,
  Query,
  Res,
  type StreamableFile,
} from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBody,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { RequirePermission } from '../../common/auth/route-access';
import { AcceptsBody, UPLOAD_BODY_LIMIT } from '../../common/http/body-parsing';
import { ApiListOrCsvResponse } from '../../common/http/csv/api-csv-response';
import { streamCsv } from '../../common/http/csv/csv-export';
import { type ExportFormat, RequestedFormat } from '../../common/http/csv/export-format';
import { type Page, setTotalCount, toPage } from '../../common/http/pagination';
import { Actor } from '../audit/actor.decorator';
import type { ActorContext } from '../audit/audit.service';
import { TagListPipe } from '../../common/validation/tag-list.pipe';
import { type BulkRow, BulkRowsPipe } from './bulk-rows';
import {
  BulkResultDto,
  EndpointDetailResponseDto,
  EndpointInputDto,
  EndpointListItemDto,
  EndpointListQueryDto,
  EndpointResponseDto,
  MAX_TAGS,
  ScanHistoryQueryDto,
  ScanHistoryRowDto,
  TlsProfileResponseDto,
} from './endpoints.dto';
import { toScanHistoryRow, toTlsProfile } from './endpoints.mapper';
import { EndpointsService } from './endpoints.service';

@ApiTags('endpoints')
@Controller('endpoints')
export class EndpointsController {
  constructor(private readonly endpoints: EndpointsService) {}

  @Get()
  @ApiOperation({
    summary: 'List endpoints',
    description:
      'Needs `endpoints:view`. ' +
      'Endpoints filtered by `type`, `enabled`, `has_error`, `tag` (repeatable; any of them matches), `starttls` ' +
      '(a protocol, or `none` for host endpoints on implicit TLS), `q` (part of the name, dnsName or metadataUrl, any case) and ' +
      '`expires_within` (days: a current certificate with daysRemaining at most that, expired ones included), `superseded` ' +
      '(true: a current certificate whose renewal is stored but not deployed, see `supersededBy`; false: none), `finding` ' +
      '(repeatable finding codes; any of them matches) and `has_findings`. Each row carries `findings` (critical first) and ' +
      '`soonestNotAfter` and `daysRemaining` of its current certificate that expires first (null without one). `sort`: `name` ' +
      '(default, natural order: "app 2" before "app 10", any case), `daysRemaining`, `lastScannedAt` or `createdAt`, a leading `-` ' +
      'reverses; endpoints without a value come last either way. ' +
      'Paginated: `{ items, totalCount, limit, offset }`, `limit` 1 to 500 (default 50). ' +
      'As CSV (`Accept: text/csv` or `format=csv`): every matching endpoint in the same order, without `samlMetadata`, its ' +
      '`findings` the codes joined with `; `.',
  })
  @RequirePermission('endpoints:view')
  @ApiListOrCsvResponse(EndpointListItemDto, 'page', undefined, EndpointResponseDto)
  async listEndpoints(
    @Query() query: EndpointListQueryDto,
    @RequestedFormat() format: ExportFormat,
  ): Promise<Page<EndpointListItemDto> | StreamableFile> {
    if (format === 'csv') return streamCsv(this.endpoints.exportEndpoints(query));
    const { items, total } = await this.endpoints.listEndpoints(query);
    return toPage(items, total, query);
  }

  @Post()
  @ApiOperation({
    summary: 'Create an endpoint',
    description:
      'Needs `endpoints:edit`. ' +
      'A `host` endpoint needs `dnsName` (port 443 unless given), a `saml` endpoint `metadataUrl`, a `manual` endpoint nothing more; ' +
      'fields that do not apply to the type are ignored, except `starttls` (host only: 400 on saml and manual). ' +
      'Without `scannerId`, host and saml endpoints are assigned the current default scanner; an unknown `scannerId` is 400. ' +
      '409 when an endpoint with the same dnsName, port and ipAddress (host) or metadataUrl (saml) exists on the same scanner.',
  })
  @RequirePermission('endpoints:edit')
  @ApiCreatedResponse({ type: EndpointResponseDto })
  @ApiConflictResponse({ description: 'An endpoint with the same identity exists on the same scanner.' })
  async createEndpoint(@Body() input: EndpointInputDto, @Actor() actor: ActorContext): Promise<EndpointResponseDto> {
    return this.endpoints.createEndpoint(input, actor);
  }

  @Post('bulk')
  @ApiOperation({
    summary: 'Create endpoints in bulk',
    description:
      'Needs `endpoints:edit`. ' +
      'The body is a JSON array of up to 20,000 endpoint records as `POST /api/v1/endpoints` takes them (10 MiB at most). ' +
      'Each row is checked and created on its own, so a failing row never blocks the others: the answer is always 200, with one result ' +
      'per row (its index, and the status it would have had alone: 201, 400 or 409) and the counts created and failed.',
  })
  @HttpCode(200)
  @RequirePermission('endpoints:edit')
  @AcceptsBody({ limit: UPLOAD_BODY_LIMIT })
  @ApiBody({ type: [EndpointInputDto] })
  @ApiOkResponse({ type: BulkResultDto, description: 'Per-row results; a failing row never blocks the others.' })
  async bulkCreateEndpoints(@Body(BulkRowsPipe) rows: BulkRow[], @Actor() actor: ActorContext): Promise<BulkResultDto> {
    return this.endpoints.bulkCreate(rows, actor);
  }

  @Get(':id')
  @ApiOperation({
    summary: 'Get an endpoint',
    description:
      'Needs `endpoints:view`. The endpoint with its scan state and `currentCertificates`: one summary per current link. ' +
      '404 for an unknown id.',
  })
  @RequirePermission('endpoints:view')
  @ApiOkResponse({ type: EndpointDetailResponseDto })
  async getEndpoint(@Param('id', ParseUUIDPipe) id: string): Promise<EndpointDetailResponseDto> {
    return this.endpoints.getEndpoint(id);
  }

  @Put(':id')
  @ApiOperation({
    summary: 'Replace an endpoint',
    description:
      'Needs `endpoints:edit`. Replaces the writable fields; omitted ones return to their defaults (`scannerId`: the default scanner). ' +
      '`type` cannot change (400). Validation and the 409 on a duplicate are those of `POST /api/v1/endpoints`.',
  })
  @RequirePermission('endpoints:edit')
  @ApiOkResponse({ type: EndpointResponseDto, description: 'Replaces the writable fields; omitted ones return to their defaults.' })
  @ApiConflictResponse({ description: 'An endpoint with the same identity exists on the same scanner.' })
  async replaceEndpoint(
    @Param('id', ParseUUIDPipe) id: string,
    @Body() input: EndpointInputDto,
    @Actor() actor: ActorContext,
  ): Promise<EndpointResponseDto> {
    return this.endpoints.updateEndpoint(id, input, 'replace', actor);
  }

  @Patch(':id')
  @ApiOperation({
    summary: "Update some of an endpoint's fields",
    description:
      'Needs `endpoints:edit`. Changes only the fields it names; `type` cannot change (400). ' +
      'Validation and the 409 on a duplicate are those of `POST /api/v1/endpoints`.',
  })
  @RequirePermission('endpoints:edit')
  @ApiOkResponse({ type: EndpointResponseDto, description: 'Changes only the fields it names.' })
  @ApiConflictResponse({ description: 'An endpoint with the same identity exists on the same scanner.' })
  async patchEndpoint(
    @Param('id', ParseUUIDPipe) id: string,
    @Body() input: EndpointInputDto,
    @Actor() actor: ActorContext,
  ): Promise<EndpointResponseDto> {
    return this.endpoints.updateEndpoint(id, input, 'patch', actor);
  }

  @Delete(':id')
  @ApiOperation({
    summary: 'Delete an endpoint',
    description:
      'Needs `endpoints:edit`. Deletes the endpoint with its certificate links and scan history; the certificates stay in the store. ' +
      '404 for an unknown id.',
  })
  @HttpCode(204)
  @RequirePermission('endpoints:edit')
  @ApiNoContentResponse()
  async deleteEndpoint(@Param('id', ParseUUIDPipe) id: string, @Actor() actor: ActorContext): Promise<void> {
    await this.endpoints.deleteEndpoint(id, actor);
  }

  @Post(':id/scan')
  @ApiOperation({
    summary: 'Ask for a scan now',
    description:
      "Needs `endpoints:edit`. Asks the endpoint's scanner to scan it now instead of at its next scheduled cycle: the request is " +
      'recorded and the agent, which holds a long-poll on `GET /api/v1/scanner/work`, hears of it within moments on whichever API ' +
      'replica it is connected to. Answers 202 at once; the result shows in the endpoint and its history once the agent reports it. ' +
      'Asking again before that changes nothing. 404 for an unknown id; 409 for a manual, disabled or scan-exempt endpoint, which ' +
      'no scanner scans. Audited as `endpoint:scan_request`.',
  })
  @HttpCode(202)
  @RequirePermission('endpoints:edit')
  @ApiAcceptedResponse({ description: 'The scan is requested; the agent scans the endpoint within moments.' })
  @ApiConflictResponse({ description: 'The endpoint is manual, disabled or scan-exempt: no scanner scans it.' })
  async requestEndpointScan(@Param('id', ParseUUIDPipe) id: string, @Actor() actor: ActorContext): Promise<void> {
    await this.endpoints.requestScan(id, actor);
  }

  @Get(':id/history')
  @ApiOperation({
    summary: "List an endpoint's scan history",
    description:
      'Needs `endpoints:view`. ' +
      'One row per scan, newest first: when, success or error, the address reached, the leaf fingerprint, the TLS version and the ' +
      'scanner. Empty for manual endpoints. A bare array: ' +
      '`limit` 1 to 5000 (default 500) and `offset` choose the window, `X-Total-Count` gives the number of scans. ' +
      'As CSV (`Accept: text/csv` or `format=csv`): the whole history, newest first.',
  })
  @RequirePermission('endpoints:view')
  @ApiListOrCsvResponse(ScanHistoryRowDto, 'array', 'Newest first; X-Total-Count gives the full size. Empty for manual endpoints.')
  async getEndpointHistory(
    @Param('id', ParseUUIDPipe) id: string,
    @Query() query: ScanHistoryQueryDto,
    @RequestedFormat() format: ExportFormat,
    @Res({ passthrough: true }) res: Response,
  ): Promise<ScanHistoryRowDto[] | StreamableFile> {
    if (format === 'csv') return streamCsv(this.endpoints.exportHistory(id));
    const { rows, total } = await this.endpoints.history(id, { limit: query.limit, offset: query.offset });
    setTotalCount(res, total);
    return rows.map(toScanHistoryRow);
  }

  @Get(':id/tls-profile')
  @ApiOperation({
    summary: "Get an endpoint's TLS profile",
    description:
      'Needs `endpoints:view`. ' +
      'For a host endpoint, the TLS versions and IANA cipher suites it accepted when last profiled, and what the handshake negotiated. ' +
      '404 for saml and manual endpoints and for a host not profiled yet.',
  })
  @RequirePermission('endpoints:view')
  @ApiOkResponse({ type: TlsProfileResponseDto })
  async getEndpointTlsProfile(@Param('id', ParseUUIDPipe) id: string): Promise<TlsProfileResponseDto> {
    return toTlsProfile(await this.endpoints.tlsProfile(id));
  }

  @Get(':id/tags')
  @ApiOperation({
    summary: "Get an endpoint's tags",
    description: "Needs `tags:view`. The endpoint's tags as an array of strings. 404 for an unknown endpoint.",
  })
  @RequirePermission('tags:view')
  @ApiOkResponse({ type: [String] })
  getEndpointTags(@Param('id', ParseUUIDPipe) id: string): Promise<string[]> {
    return this.endpoints.getTags(id);
  }

  @Put(':id/tags')
  @ApiOperation({
    summary: "Replace an endpoint's tags",
    description:
      'Needs `endpoints:edit`. ' +
      'The body is a JSON array of at most 100 tags (`category:value` or `value`, 1 to 100 printable characters); repeated tags are ' +
      'kept once. Answers the stored tags.',
  })
  @RequirePermission('endpoints:edit')
  @ApiBody({ schema: { type: 'array', items: { type: 'string' }, example: ['env:prod', 'team:payments'] } })
  @ApiOkResponse({ type: [String] })
  replaceEndpointTags(
    @Param('id', ParseUUIDPipe) id: string,
    @Body(new TagListPipe(MAX_TAGS, `An endpoint has at most ${MAX_TAGS} tags.`)) tags: string[],
    @Actor() actor: ActorContext,
  ): Promise<string[]> {
    return this.endpoints.replaceTags(id, tags, actor);
  }
}
