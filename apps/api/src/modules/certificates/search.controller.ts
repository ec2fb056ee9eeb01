import { Controller, Get, Query } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { RequirePermission } from '../../common/auth/route-access';
import { type Page, toPage } from '../../common/http/pagination';
import { CertificateSearchItemDto, EndpointSearchItemDto, SearchQueryDto } from './certificates.dto';
import { CertificatesService } from './certificates.service';

@ApiTags('search')
@Controller('search')
export class SearchController {
  constructor(private readonly certificates: CertificatesService) {}

  @Get()
  @ApiOperation({
    summary: 'Search certificates and endpoints',
    description:
      'Needs `certs:view`. ' +
      '`q` (2 to 200 characters) matches certificates by fingerprint prefix, common name and SANs, and endpoints by name, dnsName and ' +
      'metadataUrl. Paginated: ' +
      '`{ items, totalCount, limit, offset }`, `limit` 1 to 500 (default 50); the items, certificates first, carry `kind: certificate` ' +
      'or `kind: endpoint`.',
  })
  @RequirePermission('certs:view')
  @ApiExtraModels(CertificateSearchItemDto, EndpointSearchItemDto)
  @ApiOkResponse({
    description: 'Certificates (fingerprint prefix, common name, SANs) first, then endpoints (name, dnsName, metadataUrl).',
    schema: {
      type: 'object',
      required: ['items', 'totalCount', 'limit', 'offset'],
      properties: {
        items: {
          type: 'array',
          items: { oneOf: [{ $ref: getSchemaPath(CertificateSearchItemDto) }, { $ref: getSchemaPath(EndpointSearchItemDto) }] },
        },
        totalCount: { type: 'integer' },
        limit: { type: 'integer' },
        offset: { type: 'integer' },
      },
    },
  })
  async search(@Query() query: SearchQueryDto): Promise<Page<CertificateSearchItemDto | EndpointSearchItemDto>> {
    const { items, total } = await this.certificates.search(query.q, query);
    return toPage(items, total, query);
  }
}
