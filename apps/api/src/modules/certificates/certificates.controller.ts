import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Res, type StreamableFile } from '@nestjs/common';
import { expiringWithinBefore } from '@certkeeper/domain';
import {
  ApiBody,
  ApiConflictResponse,
  ApiConsumes,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { RequirePermission } from '../../common/auth/route-access';
import { Clock } from '../../common/clock';
import { AcceptsBody, UPLOAD_BODY_LIMIT } from '../../common/http/body-parsing';
import { UploadBodyPipe, type UploadPayload } from './upload-body';
import { ApiListOrCsvResponse } from '../../common/http/csv/api-csv-response';
import { streamCsv } from '../../common/http/csv/csv-export';
import { type ExportFormat, RequestedFormat } from '../../common/http/csv/export-format';
import { JsonArrayText } from '../../common/http/json-array-text';
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
import { toActiveCertificate, toCertificateSummary, toLinkedEndpoint } from './certificates.mapper';
import type { ActiveLinkRow, CertificateSummary } from './certificates.repository';
import { CertificatesService } from './certificates.service';
import { ParseFingerprintPipe } from './fingerprint.pipe';
import { MAX_UPLOAD_CERTIFICATES } from './upload-body';

export const CERTIFICATE_BODY = {
  description:
    'PEM (one or more CERTIFICATE blocks; the first is the one described), base64 DER, raw DER, or JSON { pem, certUse? }; ' +
    'each may also be, or contain, a PKCS #7 certs-only bundle (.p7b/.p7c, `-----BEGIN PKCS7-----` or DER, as `openssl crl2pkcs7` writes), ' +
    'whose certificates are all stored: its leaf (the certificate that issued none of the others, preferring one that is not a CA) is the one described. ' +
    `At most ${MAX_UPLOAD_CERTIFICATES} certificates per upload. A PKCS #7 that is not SignedData, or has no certificates, is refused.`,
  schema: {
    type: 'object',
    required: ['pem'],
    properties: { pem: { type: 'string' }, certUse: { type: 'string', enum: ['tls', 'signing', 'encryption', 'manual'] } },
  },
} as const;
export const CERTIFICATE_MEDIA_TYPES = [
  'application/json',
  'application/x-pem-file',
  'text/plain',
  'application/pkix-cert',
  'application/pkcs7-mime',
  'application/x-pkcs7-certificates',
];

@ApiTags('certificates')
@Controller('certificates')
export class CertificatesController {
  constructor(
    private readonly certificates: CertificatesService,
    private readonly clock: Clock,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'List certificates',
    description:
      'Needs `certs:view`. ' +
      'Every stored certificate, soonest `notAfter` first, filtered by `q` (a fingerprint prefix, or part of the common name or a ' +
      'SAN), `isCa`, `selfSigned`, `expired`, `inUse` (true: current on at least one endpoint; false: current on none) and `anchors` ' +
      '(false leaves trust anchors out). A bare array: ' +
      '`limit` 1 to 5000 (default 500) and `offset` choose the window, `X-Total-Count` gives the number of matches. ' +
      'As CSV (`Accept: text/csv` or `format=csv`): every match in the same order.',
  })
  @RequirePermission('certs:view')
  @ApiListOrCsvResponse(CertificateSummaryDto, 'array', 'Sorted by notAfter; X-Total-Count gives the full size.')
  async listCertificates(
    @Query() query: CertificateListQueryDto,
    @RequestedFormat() format: ExportFormat,
    @Res({ passthrough: true }) res: Response,
  ): Promise<string | StreamableFile> {
    const now = this.clock.now();
    const criteria = {
      q: query.q,
      isCa: query.isCa,
      selfSigned: query.selfSigned,
      expired: query.expired,
      inUse: query.inUse,
      anchors: query.anchors,
      now,
    };
    if (format === 'csv') {
      return streamCsv({
        list: 'certificates',
        item: CertificateSummaryDto,
        open: () => this.certificates.exportCertificates(criteria),
        toItem: (row: CertificateSummary) => toCertificateSummary(row, now),
        now,
      });
    }
    const page = new JsonArrayText<CertificateSummaryDto>();
    const window = { ...criteria, limit: query.limit, offset: query.offset };
    setTotalCount(res, await this.certificates.listCertificates(window, (row) => page.add(toCertificateSummary(row, now))));
    return page.respond(res);
  }

  @Get('active')
  @ApiOperation({
    summary: 'List the certificates current on endpoints',
    description:
      'Needs `certs:view`. ' +
      'One row per current (endpoint, certificate) link, soonest expiry first, disabled and scan-exempt endpoints included; filters ' +
      '`type` (of the endpoint), `tag` (repeatable; any of them matches) and `certUse`. A bare array: ' +
      '`limit` 1 to 5000 (default 500) and `offset` choose the window, `X-Total-Count` gives the number of matches. ' +
      'As CSV (`Accept: text/csv` or `format=csv`): every match in the same order.',
  })
  @RequirePermission('certs:view')
  @ApiListOrCsvResponse(ActiveCertificateDto, 'array', 'One row per current (endpoint, certificate) link, soonest expiry first.')
  listActiveCertificates(
    @Query() query: ActiveQueryDto,
    @RequestedFormat() format: ExportFormat,
    @Res({ passthrough: true }) res: Response,
  ): Promise<string | StreamableFile> {
    return this.activeList(query, format, res, null);
  }

  @Get('expiring')
  @ApiOperation({
    summary: 'List certificates expiring soon',
    description:
      'Needs `certs:view`. ' +
      'The rows of `GET /api/v1/certificates/active` whose certificate has at most `days` days remaining (0 to 3650, default 30); ' +
      'expired ones are always included, with a negative `daysRemaining`. Same filters, window, `X-Total-Count` and CSV form.',
  })
  @RequirePermission('certs:view')
  @ApiListOrCsvResponse(
    ActiveCertificateDto,
    'array',
    'Current links expiring within `days` days, expired ones included (negative daysRemaining).',
  )
  listExpiringCertificates(
    @Query() query: ExpiringQueryDto,
    @RequestedFormat() format: ExportFormat,
    @Res({ passthrough: true }) res: Response,
  ): Promise<string | StreamableFile> {
    return this.activeList(query, format, res, query.days);
  }

  @Get('lookup')
  @ApiOperation({
    summary: 'Look up certificates by fingerprint, serial number or hostname',
    description:
      'Needs `certs:view`. ' +
      'Give at least one of `fingerprint` (SHA-256 or SHA-1), `serialNumber` and `hostname` (certificates that cover it, wildcards ' +
      'honoured); every one given must match. A bare array, latest `notAfter` first, at most 1000 rows. ' +
      'None of the three, or a malformed one, is 400.',
  })
  @RequirePermission('certs:view')
  @ApiOkResponse({ type: [CertificateSummaryDto] })
  async lookupCertificates(@Query() query: LookupQueryDto): Promise<CertificateSummaryDto[]> {
    return this.certificates.lookup(query);
  }

  @Post()
  @ApiOperation({
    summary: 'Upload certificates to the store',
    description:
      'Needs `certs:edit`. ' +
      'Stores every certificate of the body (PEM, DER, base64 DER, a PKCS #7 bundle, or JSON `{ pem }`; up to 10 MiB) without linking ' +
      'it to an endpoint, and answers the detail of the first one (of a PKCS #7 bundle: its leaf). ' +
      '201 when that certificate was new, 200 when it was already stored; uploading it again changes nothing. ' +
      'A body that does not parse is 400.',
  })
  @RequirePermission('certs:edit')
  @AcceptsBody({ limit: UPLOAD_BODY_LIMIT, certificates: true })
  @ApiConsumes(...CERTIFICATE_MEDIA_TYPES)
  @ApiBody(CERTIFICATE_BODY)
  @ApiCreatedResponse({ type: CertificateDetailDto, description: 'The first certificate was new.' })
  @ApiOkResponse({ type: CertificateDetailDto, description: 'The first certificate was already stored.' })
  async uploadCertificate(
    @Body(UploadBodyPipe) body: UploadPayload,
    @Actor() actor: ActorContext,
    @Res({ passthrough: true }) res: Response,
  ): Promise<CertificateDetailDto> {
    const { certificate, created } = await this.certificates.storeUpload(body, actor);
    res.status(created ? 201 : 200);
    return this.certificates.getCertificate(certificate.fingerprint);
  }

  @Get(':fingerprint')
  @ApiOperation({
    summary: 'Get a certificate',
    description:
      'Needs `certs:view`. ' +
      'Everything known about the certificate: names, issuer (with its fingerprint when the issuer is stored), key, extensions, trust ' +
      'by root store, the PEM, and the endpoints it is current on and was seen on before. ' +
      'The fingerprint is the SHA-256 in hex, any case, colons allowed; 404 when no such certificate is stored.',
  })
  @RequirePermission('certs:view')
  @ApiOkResponse({ type: CertificateDetailDto })
  getCertificate(@Param('fingerprint', ParseFingerprintPipe) fingerprint: string): Promise<CertificateDetailDto> {
    return this.certificates.getCertificate(fingerprint);
  }

  @Delete(':fingerprint')
  @ApiOperation({
    summary: 'Delete a certificate',
    description:
      'Needs `certs:edit`. Removes the certificate from the store. ' +
      'Refused with 409 while any link of an endpoint, current or historical, references it; 404 when it is not stored.',
  })
  @HttpCode(204)
  @RequirePermission('certs:edit')
  @ApiNoContentResponse()
  @ApiConflictResponse({ description: 'A link (current or historical) references the certificate.' })
  async deleteCertificate(@Param('fingerprint', ParseFingerprintPipe) fingerprint: string, @Actor() actor: ActorContext): Promise<void> {
    await this.certificates.deleteCertificate(fingerprint, actor);
  }

  @Get(':fingerprint/endpoints')
  @ApiOperation({
    summary: 'List the endpoints a certificate is current on',
    description:
      'Needs `certs:view`. ' +
      'The endpoints presenting the certificate now, with its use there and when it was first and last seen, most recently seen first. ' +
      '404 when the certificate is not stored.',
  })
  @RequirePermission('certs:view')
  @ApiOkResponse({ type: [LinkedEndpointDto], description: 'Endpoints presenting it now.' })
  async listCertificateEndpoints(@Param('fingerprint', ParseFingerprintPipe) fingerprint: string): Promise<LinkedEndpointDto[]> {
    return (await this.certificates.endpointsOf(fingerprint, true)).map(toLinkedEndpoint);
  }

  @Get(':fingerprint/endpoints/historical')
  @ApiOperation({
    summary: 'List the endpoints that presented a certificate before',
    description:
      'Needs `certs:view`. ' +
      'The endpoints where the certificate is no longer current, with when it was last observed there, most recent first. ' +
      '404 when the certificate is not stored.',
  })
  @RequirePermission('certs:view')
  @ApiOkResponse({ type: [LinkedEndpointDto], description: 'Endpoints that presented it, with the date last observed.' })
  async listCertificateHistoricalEndpoints(@Param('fingerprint', ParseFingerprintPipe) fingerprint: string): Promise<LinkedEndpointDto[]> {
    return (await this.certificates.endpointsOf(fingerprint, false)).map(toLinkedEndpoint);
  }

  /** Active links, or with `withinDays` the expiring ones (daysRemaining <= withinDays, expired included). */
  private async activeList(
    query: ActiveQueryDto,
    format: ExportFormat,
    res: Response,
    withinDays: number | null,
  ): Promise<string | StreamableFile> {
    const now = this.clock.now();
    const criteria = {
      notAfterBefore: withinDays === null ? undefined : expiringWithinBefore(withinDays, now),
      type: query.type,
      tags: query.tag,
      certUse: query.certUse,
    };
    if (format === 'csv') {
      return streamCsv({
        list: withinDays === null ? 'certificates-active' : 'certificates-expiring',
        item: ActiveCertificateDto,
        open: () => this.certificates.exportActive(criteria, now),
        toItem: (row: ActiveLinkRow) => toActiveCertificate(row, now),
        now,
      });
    }
    const page = new JsonArrayText<ActiveCertificateDto>();
    const window = { ...criteria, limit: query.limit, offset: query.offset };
    setTotalCount(res, await this.certificates.listActive(window, now, (row) => page.add(toActiveCertificate(row, now))));
    return page.respond(res);
  }
}
