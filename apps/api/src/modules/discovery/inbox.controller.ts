import { Body, Controller, Get, HttpCode, Param, ParseUUIDPipe, Post, Query, type StreamableFile } from '@nestjs/common';
import { ApiConflictResponse, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '../../common/auth/route-access';
import { ApiListOrCsvResponse } from '../../common/http/csv/api-csv-response';
import { streamCsv } from '../../common/http/csv/csv-export';
import { type ExportFormat, RequestedFormat } from '../../common/http/csv/export-format';
import { type Page, toPage } from '../../common/http/pagination';
import { Actor } from '../audit/actor.decorator';
import type { ActorContext } from '../audit/audit.service';
import { EndpointResponseDto } from '../endpoints/endpoints.dto';
import {
  InboxBulkDto,
  InboxBulkResultDto,
  InboxEntryResponseDto,
  InboxQueryDto,
  MAX_BULK_INBOX_IDS,
  PromoteInboxEntryDto,
} from './inbox.dto';
import { InboxService } from './inbox.service';

@ApiTags('discovery')
@Controller('discovery/inbox')
export class InboxController {
  constructor(private readonly inbox: InboxService) {}

  @Get()
  @ApiOperation({
    summary: 'List the discovery inbox',
    description:
      'Needs `discovery:view`. One entry per (network, address, port) a sweep found a TLS service at, newest first, with its ' +
      'certificate and a status: `new`, `tracked` (a host endpoint on the port names the address or last reached it), `promoted` or ' +
      '`dismissed`. Filters `status`, `networkId` and `q` (part of the address, a host name, the common name or the fingerprint). ' +
      'Paginated: `{ items, totalCount, limit, offset }`, `limit` 1 to 500 (default 50). ' +
      'As CSV (`Accept: text/csv` or `format=csv`): every matching entry in the same order.',
  })
  @RequirePermission('discovery:view')
  @ApiListOrCsvResponse(InboxEntryResponseDto, 'page')
  async listInbox(
    @Query() query: InboxQueryDto,
    @RequestedFormat() format: ExportFormat,
  ): Promise<Page<InboxEntryResponseDto> | StreamableFile> {
    const criteria = { status: query.status, networkId: query.networkId, q: query.q };
    if (format === 'csv') return streamCsv(this.inbox.exportEntries(criteria));
    const { items, total } = await this.inbox.listEntries({ ...criteria, limit: query.limit, offset: query.offset });
    return toPage(items, total, query);
  }

  @Post('bulk')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Promote or dismiss inbox entries in bulk',
    description:
      `Needs \`discovery:edit\`. Up to ${MAX_BULK_INBOX_IDS} ids, each handled on its own as the ` +
      'single action would handle it: the answer is always 200, with one result per id (its index, the status it would have had ' +
      'alone, the endpoint created or the entry dismissed, or the error) and the counts.',
  })
  @RequirePermission('discovery:edit')
  @ApiOkResponse({ type: InboxBulkResultDto })
  async bulk(@Body() body: InboxBulkDto, @Actor() actor: ActorContext): Promise<InboxBulkResultDto> {
    return this.inbox.bulk(body.action, body.ids, actor);
  }

  @Post(':id/promote')
  @ApiOperation({
    summary: 'Promote an inbox entry to a host endpoint',
    description:
      'Needs `discovery:edit`. Creates a host endpoint exactly as `POST /api/v1/endpoints` would (same validation, ' +
      'duplicate check and default scanner): `ipAddress` the address, `port` the port, `dnsName` by default the first host name ' +
      'that is not a wildcard, else the address. The entry becomes `promoted`. 404 unknown entry; 409 already promoted, already ' +
      'tracked by an endpoint, or a duplicate endpoint.',
  })
  @RequirePermission('discovery:edit')
  @ApiCreatedResponse({ type: EndpointResponseDto })
  @ApiConflictResponse({ description: 'Already promoted, already tracked, or such an endpoint exists.' })
  async promote(
    @Param('id', ParseUUIDPipe) id: string,
    @Body() body: PromoteInboxEntryDto,
    @Actor() actor: ActorContext,
  ): Promise<EndpointResponseDto> {
    return this.inbox.promote(id, body, actor);
  }

  @Post(':id/dismiss')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Dismiss an inbox entry',
    description:
      'Needs `discovery:edit`. The entry stays `dismissed` through later sweeps until one sees a different certificate there; then it ' +
      'is `new` again. 404 unknown entry; 409 for a promoted entry (delete its endpoint instead).',
  })
  @RequirePermission('discovery:edit')
  @ApiOkResponse({ type: InboxEntryResponseDto })
  @ApiConflictResponse({ description: 'The entry was promoted: delete its endpoint instead.' })
  async dismiss(@Param('id', ParseUUIDPipe) id: string, @Actor() actor: ActorContext): Promise<InboxEntryResponseDto> {
    return this.inbox.dismiss(id, actor);
  }
}
