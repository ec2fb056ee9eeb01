import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import {
  ApiBody,
  ApiConflictResponse,
  ApiConsumes,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { RequirePermission } from '../../common/auth/route-access';
import { Clock } from '../../common/clock';
import { setTotalCount } from '../../common/http/pagination';
import { Actor } from '../audit/actor.decorator';
import type { ActorContext } from '../audit/audit.service';
import {
  ActiveCertificateDto,
  ActiveQueryDto,
  CertificateDetailDto,
  CertificateListQueryDto,
  CertificateSummaryDto,
  ExpiringQueryDto,
  LinkedEndpointDto,
  LookupQueryDto,
} from './certificates.dto';
import { toActiveCertificate, toCertificateDetail, toCertificateSummary, toLinkedEndpoint } from './certificates.mapper';
import { CertificatesService } from './certificates.service';
import { ParseFingerprintPipe } from './fingerprint.pipe';
import { MAX_UPLOAD_CERTIFICATES } from './upload-body';

const DAY_MS = 24 * 60 * 60 * 1000;

export const CERTIFICATE_BODY = {
  description: `PEM (one or more certificates, at most ${MAX_UPLOAD_CERTIFICATES}; the first is the one described), base64 DER, raw DER, or JSON { pem, certUse? }.`,
  schema: {
    type: 'object',
    required: ['pem'],
    properties: { pem: { type: 'string' }, certUse: { type: 'string', enum: ['tls', 'signing', 'encryption', 'manual'] } },
  },
} as const;
export const CERTIFICATE_MEDIA_TYPES = ['application/json', 'application/x-pem-file', 'text/plain', 'application/pkix-cert'];

@ApiTags('certificates')
@Controller('certificates')
export class CertificatesController {
  constructor(
    private readonly certificates: CertificatesService,
    private readonly clock: Clock,
  ) {}

  @Get()
  @RequirePermission('certs:view')
  @ApiOkResponse({ type: [CertificateSummaryDto], description: 'Sorted by notAfter; X-Total-Count gives the full size.' })
  async listCertificates(
    @Query() query: CertificateListQueryDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<CertificateSummaryDto[]> {
    const now = this.clock.now();
    const { rows, total } = await this.certificates.listCertificates({ ...query, now });
    setTotalCount(res, total);
    return rows.map((row) => toCertificateSummary(row, now));
  }

  @Get('active')
  @RequirePermission('certs:view')
  @ApiOkResponse({ type: [ActiveCertificateDto], description: 'One row per current (endpoint, certificate) link, soonest expiry first.' })
  listActiveCertificates(@Query() query: ActiveQueryDto, @Res({ passthrough: true }) res: Response): Promise<ActiveCertificateDto[]> {
    return this.activePage(query, res, null);
  }

  @Get('expiring')
  @RequirePermission('certs:view')
  @ApiOkResponse({
    type: [ActiveCertificateDto],
    description: 'Current links expiring within `days` days, expired ones included (negative daysRemaining).',
  })
  listExpiringCertificates(@Query() query: ExpiringQueryDto, @Res({ passthrough: true }) res: Response): Promise<ActiveCertificateDto[]> {
    return this.activePage(query, res, query.days);
  }

  @Get('lookup')
  @RequirePermission('certs:view')
  @ApiOkResponse({ type: [CertificateSummaryDto] })
  async lookupCertificates(@Query() query: LookupQueryDto): Promise<CertificateSummaryDto[]> {
    const now = this.clock.now();
    return (await this.certificates.lookup(query)).map((row) => toCertificateSummary(row, now));
  }

  @Post()
  @RequirePermission('certs:edit')
  @ApiConsumes(...CERTIFICATE_MEDIA_TYPES)
  @ApiBody(CERTIFICATE_BODY)
  @ApiCreatedResponse({ type: CertificateDetailDto, description: 'The first certificate was new.' })
  @ApiOkResponse({ type: CertificateDetailDto, description: 'The first certificate was already stored.' })
  async uploadCertificate(
    @Body() body: unknown,
    @Actor() actor: ActorContext,
    @Res({ passthrough: true }) res: Response,
  ): Promise<CertificateDetailDto> {
    const { certificate, created } = await this.certificates.storeUpload(body, actor);
    res.status(created ? 201 : 200);
    return this.detail(certificate.fingerprint);
  }

  @Get(':fingerprint')
  @RequirePermission('certs:view')
  @ApiOkResponse({ type: CertificateDetailDto })
  getCertificate(@Param('fingerprint', ParseFingerprintPipe) fingerprint: string): Promise<CertificateDetailDto> {
    return this.detail(fingerprint);
  }

  @Delete(':fingerprint')
  @HttpCode(204)
  @RequirePermission('certs:edit')
  @ApiNoContentResponse()
  @ApiConflictResponse({ description: 'A link (current or historical) references the certificate.' })
  async deleteCertificate(@Param('fingerprint', ParseFingerprintPipe) fingerprint: string, @Actor() actor: ActorContext): Promise<void> {
    await this.certificates.deleteCertificate(fingerprint, actor);
  }

  @Get(':fingerprint/endpoints')
  @RequirePermission('certs:view')
  @ApiOkResponse({ type: [LinkedEndpointDto], description: 'Endpoints presenting it now.' })
  async listCertificateEndpoints(@Param('fingerprint', ParseFingerprintPipe) fingerprint: string): Promise<LinkedEndpointDto[]> {
    return (await this.certificates.endpointsOf(fingerprint, true)).map(toLinkedEndpoint);
  }

  @Get(':fingerprint/endpoints/historical')
  @RequirePermission('certs:view')
  @ApiOkResponse({ type: [LinkedEndpointDto], description: 'Endpoints that presented it, with the date last observed.' })
  async listCertificateHistoricalEndpoints(@Param('fingerprint', ParseFingerprintPipe) fingerprint: string): Promise<LinkedEndpointDto[]> {
    return (await this.certificates.endpointsOf(fingerprint, false)).map(toLinkedEndpoint);
  }

  /** Active links, or with `withinDays` the expiring ones: daysRemaining <= days  <=>  notAfter < now + (days + 1) * 24 h. */
  private async activePage(query: ActiveQueryDto, res: Response, withinDays: number | null): Promise<ActiveCertificateDto[]> {
    const now = this.clock.now();
    const { rows, total } = await this.certificates.listActive({
      notAfterBefore: withinDays === null ? undefined : new Date(now.getTime() + (withinDays + 1) * DAY_MS),
      type: query.type,
      tags: query.tag,
      certUse: query.certUse,
      limit: query.limit,
      offset: query.offset,
    });
    setTotalCount(res, total);
    return rows.map((row) => toActiveCertificate(row, now));
  }

  private async detail(fingerprint: string): Promise<CertificateDetailDto> {
    const { certificate, ...related } = await this.certificates.getCertificate(fingerprint);
    return toCertificateDetail(certificate, related, this.clock.now());
  }
}
