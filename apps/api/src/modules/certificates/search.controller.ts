import { Controller, Get, Query } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { RequirePermission } from '../../common/auth/route-access';
import { Clock } from '../../common/clock';
import { type Page, toPage } from '../../common/http/pagination';
import { toEndpointResponse } from '../endpoints/endpoints.mapper';
import { CertificateSearchItemDto, EndpointSearchItemDto, SearchQueryDto } from './certificates.dto';
import { toCertificateSummary } from './certificates.mapper';
import { CertificatesService } from './certificates.service';

@ApiTags('search')
@Controller('search')
export class SearchController {
  constructor(
    private readonly certificates: CertificatesService,
    private readonly clock: Clock,
  ) {}

  @Get()
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
    const now = this.clock.now();
    const { hits, total } = await this.certificates.search(query.q, query);
    const items = hits.map((hit) =>
      hit.kind === 'certificate'
        ? { kind: 'certificate' as const, ...toCertificateSummary(hit.certificate, now) }
        : { kind: 'endpoint' as const, ...toEndpointResponse(hit.endpoint) },
    );
    return toPage(items, total, query);
  }
}
