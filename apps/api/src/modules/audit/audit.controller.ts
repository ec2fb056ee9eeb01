import { Controller, Get, Query, type StreamableFile } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '../../common/auth/route-access';
import { ApiListOrCsvResponse } from '../../common/http/csv/api-csv-response';
import { streamCsv } from '../../common/http/csv/csv-export';
import { type ExportFormat, RequestedFormat } from '../../common/http/csv/export-format';
import { type Page, toPage } from '../../common/http/pagination';
import { AuditEntryResponseDto, AuditQueryDto, toAuditEntryResponse } from './audit.dto';
import { AuditService } from './audit.service';

@ApiTags('audit')
@Controller('audit')
export class AuditController {
  constructor(private readonly audit: AuditService) {}

  @Get()
  @ApiOperation({
    summary: 'List audit entries',
    description:
      'Needs `audit:view`. Who changed what and in which request, newest first, optionally only one `action` or one `targetId`. ' +
      'Paginated: `{ items, totalCount, limit, offset }`, `limit` 1 to 500 (default 50). ' +
      'As CSV (`Accept: text/csv` or `format=csv`): every matching entry in the same order, without `details`.',
  })
  @RequirePermission('audit:view')
  @ApiListOrCsvResponse(AuditEntryResponseDto, 'page')
  async listAuditEntries(
    @Query() query: AuditQueryDto,
    @RequestedFormat() format: ExportFormat,
  ): Promise<Page<AuditEntryResponseDto> | StreamableFile> {
    const criteria = { action: query.action, targetId: query.targetId };
    if (format === 'csv') return streamCsv(this.audit.exportEntries(criteria));
    const { rows, total } = await this.audit.list({ ...criteria, limit: query.limit, offset: query.offset });
    return toPage(rows.map(toAuditEntryResponse), total, query);
  }
}
