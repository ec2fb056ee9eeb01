import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '../../common/auth/route-access';
import { ApiPageResponse, type Page, toPage } from '../../common/http/pagination';
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
      'Paginated: `{ items, totalCount, limit, offset }`, `limit` 1 to 500 (default 50).',
  })
  @RequirePermission('audit:view')
  @ApiPageResponse(AuditEntryResponseDto)
  async listAuditEntries(@Query() query: AuditQueryDto): Promise<Page<AuditEntryResponseDto>> {
    const { rows, total } = await this.audit.list(query);
    return toPage(rows.map(toAuditEntryResponse), total, query);
  }
}
