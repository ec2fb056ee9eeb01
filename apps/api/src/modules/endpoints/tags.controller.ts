import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '../../common/auth/route-access';
import { TagSummaryDto } from './endpoints.dto';
import { toTagSummary } from './endpoints.mapper';
import { EndpointsService } from './endpoints.service';

@ApiTags('endpoints')
@Controller('tags')
export class TagsController {
  constructor(private readonly endpoints: EndpointsService) {}

  @Get()
  @RequirePermission('tags:view')
  @ApiOkResponse({ type: [TagSummaryDto] })
  async listTags(): Promise<TagSummaryDto[]> {
    return (await this.endpoints.listTagCounts()).map(toTagSummary);
  }
}
