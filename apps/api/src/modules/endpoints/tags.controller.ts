import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '../../common/auth/route-access';
import { TagSummaryDto } from './endpoints.dto';
import { toTagSummary } from './endpoints.mapper';
import { EndpointsService } from './endpoints.service';

@ApiTags('endpoints')
@Controller('tags')
export class TagsController {
  constructor(private readonly endpoints: EndpointsService) {}

  @Get()
  @ApiOperation({
    summary: 'List the tags in use',
    description:
      'Needs `tags:view`. ' +
      'Every tag that at least one endpoint carries, sorted, split into category (null for a bare tag) and value, with the number of ' +
      'endpoints carrying it.',
  })
  @RequirePermission('tags:view')
  @ApiOkResponse({ type: [TagSummaryDto] })
  async listTags(): Promise<TagSummaryDto[]> {
    return (await this.endpoints.listTagCounts()).map(toTagSummary);
  }
}
