import { Controller, Get, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '../../common/auth/route-access';
import { ApiPageResponse, type Page, toPage } from '../../common/http/pagination';
import { AuditEntryResponseDto, AuditQueryDto, toAuditEntryResponse } from './audit.dto';
import { AuditService } from './audit.service';

@ApiTags('audit')
@Controller('audit')
export class AuditController {
  constructor(private readonly audit: AuditService) {}

  @Get()
  @RequirePermission('audit:view')
  @ApiPageResponse(AuditEntryResponseDto)
  async listAuditEntries(@Query() query: AuditQueryDto): Promise<Page<AuditEntryResponseDto>> {
    const { rows, total } = await this.audit.list(query);
    return toPage(rows.map(toAuditEntryResponse), total, query);
  }
}
