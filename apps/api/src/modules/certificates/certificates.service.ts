import { BadRequestException, ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { certificateCoversHostname, hostnameCoverCandidates, type ParsedCertificate, parseFingerprint } from '@certkeeper/domain';
import { Clock } from '../../common/clock';
import type { Transaction } from '../../database/transaction';
import { type ActorContext, AuditService } from '../audit/audit.service';
import { EndpointsService } from '../endpoints/endpoints.service';
import { toEndpointResponse } from '../endpoints/endpoints.mapper';
import type { CertUse } from '../links/endpoint-certificate.entity';
import { type LinkedEndpointRow, LinksRepository } from '../links/links.repository';
import { LinksService } from '../links/links.service';
import type { CertificateEntity } from './certificate.entity';
import type { RowStream } from '../../database/row-stream';
import {
  type ActiveCriteria,
  type ActiveFilter,
  type ActiveLinkRow,
  type CertificateCriteria,
  type CertificateFilter,
  CertificatesRepository,
  type CertificateSummary,
} from './certificates.repository';
import { TrustVerdictsService } from '../trust/trust-verdicts.service';
import { FindingsService } from '../findings/findings.service';
import { RevocationRepository } from '../revocation/revocation.repository';
import type {
  CertificateDetailDto,
  CertificateSearchItemDto,
  CertificateSummaryDto,
  EndpointSearchItemDto,
  EndpointUploadResultDto,
} from './certificates.dto';
import { toCertificateDetail, toCertificateSummary } from './certificates.mapper';
import type { UploadPayload } from './upload-body';

@Injectable()
export class CertificatesService {
  constructor(
    private readonly certificates: CertificatesRepository,
    private readonly links: LinksService,
    private readonly linkQueries: LinksRepository,
    private readonly endpoints: EndpointsService,
    private readonly audit: AuditService,
    private readonly verdicts: TrustVerdictsService,
    private readonly findings: FindingsService,
    private readonly revocations: RevocationRepository,
    private readonly clock: Clock,
  ) {}

  /**
   * Stores parsed certificates in the caller's transaction and gives the new ones their trust
   * verdicts there; returns the new fingerprints. Every way a certificate enters goes through here.
   */
  async storeParsed(certificates: ParsedCertificate[], transaction: Transaction): Promise<Set<string>> {
    const created = await this.certificates.storeMany(certificates, transaction);
    await this.verdicts.evaluateArrivals(
      certificates.filter((certificate) => created.has(certificate.fingerprintSha256)),
      transaction,
    );
    return created;
  }

  /** POST /certificates: stores every certificate of the body; `created` tells whether the first was new. */
  async storeUpload({ certificates }: UploadPayload, actor: ActorContext): Promise<{ certificate: CertificateEntity; created: boolean }> {
    const first = certificates[0].fingerprintSha256;
    const inserted = await this.certificates.inTransaction(async (transaction) => {
      const stored = await this.storeParsed(certificates, transaction);
      if (stored.size > 0) {
        await this.audit.record(
          actor,
          { action: 'certificate:upload', targetType: 'certificate', targetId: first, details: { stored: [...stored] } },
          transaction,
        );
      }
      return stored;
    });
    return { certificate: (await this.certificates.findByFingerprint(first))!, created: inserted.has(first) };
  }

  /** POST /endpoints/{id}/certificate: stores the body's certificates and links the first through the link state machine. */
  async uploadToEndpoint(
    endpointId: string,
    payload: UploadPayload,
    query: { certUse?: CertUse; replace: boolean },
    actor: ActorContext,
  ): Promise<EndpointUploadResultDto> {
    const certUse = query.certUse ?? payload.certUse ?? 'manual';
    const first = payload.certificates[0].fingerprintSha256;
    const outcome = await this.certificates.inTransaction(async (transaction) => {
      await this.storeParsed(payload.certificates, transaction);
      const sighting = await this.links.recordSighting(
        { endpointId, certUse, fingerprints: [first], mode: query.replace ? 'replace' : 'add' },
        transaction,
      );
      await this.findings.recompute([endpointId], transaction);
      await this.audit.record(
        actor,
        {
          action: 'endpoint:certificate_upload',
          targetType: 'endpoint',
          targetId: endpointId,
          details: { fingerprint: first, certUse, replace: query.replace },
        },
        transaction,
      );
      return sighting;
    });
    const [certificate] = await this.certificates.findSummaries([first]);
    return {
      endpointId,
      certUse,
      link: outcome.created.length > 0 ? 'created' : outcome.reactivated.length > 0 ? 'reactivated' : 'unchanged',
      retired: outcome.retired,
      certificate: toCertificateSummary(certificate, this.clock.now()),
      storedFingerprints: payload.certificates.map((c) => c.fingerprintSha256),
    };
  }

  /** The certificate's detail as GET /certificates/{fingerprint} answers it. */
  async getCertificate(fingerprint: string): Promise<CertificateDetailDto> {
    const certificate = await this.requireCertificate(fingerprint);
    const [issuerFingerprint, current, historical, revocation] = await Promise.all([
      this.certificates.findIssuerFingerprint(certificate),
      this.linkQueries.findEndpointsOf(certificate.fingerprint, true),
      this.linkQueries.findEndpointsOf(certificate.fingerprint, false),
      this.revocations.findByFingerprint(certificate.fingerprint),
    ]);
    return toCertificateDetail(certificate, { issuerFingerprint, current, historical, revocation }, this.clock.now());
  }

  async endpointsOf(fingerprint: string, current: boolean): Promise<LinkedEndpointRow[]> {
    await this.requireCertificate(fingerprint);
    return this.linkQueries.findEndpointsOf(fingerprint, current);
  }

  /** Refused with 409 while any link, current or historical, references the certificate. */
  async deleteCertificate(fingerprint: string, actor: ActorContext): Promise<void> {
    await this.certificates.inTransaction(async (transaction) => {
      if (!(await this.certificates.lockForDelete(fingerprint, transaction))) throw new NotFoundException('Certificate not found.');
      if (await this.linkQueries.isReferenced(fingerprint, transaction)) {
        throw new ConflictException('The certificate is linked to an endpoint (current or historical) and cannot be deleted.');
      }
      await this.certificates.delete(fingerprint, transaction);
      await this.audit.record(actor, { action: 'certificate:delete', targetType: 'certificate', targetId: fingerprint }, transaction);
    });
  }

  /** Hands each row of the window to `onRow` as it arrives; resolves to the number of all matches. */
  listCertificates(filter: CertificateFilter, onRow: (row: CertificateSummary) => void): Promise<number> {
    return this.certificates.readPage(filter, onRow);
  }

  /** Hands each row of the window to `onRow` as it arrives; resolves to the number of all matches. */
  listActive(filter: ActiveFilter, onRow: (row: ActiveLinkRow) => void): Promise<number> {
    return this.certificates.readActivePage(filter, onRow);
  }

  /** Every certificate the list filters match, streamed for an export. */
  exportCertificates(criteria: CertificateCriteria): Promise<RowStream<CertificateSummary>> {
    return this.certificates.streamMatching(criteria);
  }

  /** Every current link the active or expiring filters match, streamed for an export. */
  exportActive(criteria: ActiveCriteria): Promise<RowStream<ActiveLinkRow>> {
    return this.certificates.streamActive(criteria);
  }

  async lookup(query: { fingerprint?: string; serialNumber?: string; hostname?: string }): Promise<CertificateSummaryDto[]> {
    if (!query.fingerprint && !query.serialNumber && !query.hostname) {
      throw new BadRequestException('Give at least one of fingerprint, serialNumber or hostname.');
    }
    const fingerprint = query.fingerprint === undefined ? null : parseFingerprint(query.fingerprint);
    if (query.fingerprint !== undefined && !fingerprint)
      throw new BadRequestException('fingerprint must be a SHA-256 or SHA-1 fingerprint in hexadecimal');
    const serialNumber = query.serialNumber === undefined ? undefined : normaliseSerial(query.serialNumber);
    if (serialNumber === null) throw new BadRequestException('serialNumber must be hexadecimal');
    const hostname = query.hostname?.trim().toLowerCase().replace(/\.$/, '');
    if (hostname !== undefined && hostname.length === 0) throw new BadRequestException('hostname must not be empty');

    const rows = await this.certificates.lookup({
      sha256: fingerprint?.algorithm === 'sha256' ? fingerprint.hex : undefined,
      sha1: fingerprint?.algorithm === 'sha1' ? fingerprint.hex : undefined,
      serialNumber,
      hostnameCandidates: hostname ? hostnameCoverCandidates(hostname) : undefined,
    });
    // The query finds candidates; the domain rules (one-label wildcards, CN only without DNS SANs) decide.
    const now = this.clock.now();
    return (hostname ? rows.filter((row) => certificateCoversHostname(row, hostname)) : rows).map((row) => toCertificateSummary(row, now));
  }

  /** Certificates first, then endpoints; the page window runs across both. */
  async search(
    q: string,
    window: { limit: number; offset: number },
  ): Promise<{ items: (CertificateSearchItemDto | EndpointSearchItemDto)[]; total: number }> {
    // The endpoint page's offset depends on how many certificates match, so its first read only counts.
    const [certificates, endpointCount] = await Promise.all([
      this.certificates.searchPage(q, window),
      this.endpoints.countEndpoints({ q }),
    ]);
    const now = this.clock.now();
    const items: (CertificateSearchItemDto | EndpointSearchItemDto)[] = certificates.rows.map((certificate) => ({
      kind: 'certificate' as const,
      ...toCertificateSummary(certificate, now),
    }));
    const endpointOffset = Math.max(0, window.offset - certificates.total);
    const remaining = window.limit - items.length;
    if (remaining > 0 && endpointOffset < endpointCount) {
      const endpoints = await this.endpoints.listEndpoints({ q, limit: remaining, offset: endpointOffset });
      items.push(...endpoints.rows.map((endpoint) => ({ kind: 'endpoint' as const, ...toEndpointResponse(endpoint, now) })));
    }
    return { items, total: certificates.total + endpointCount };
  }

  private async requireCertificate(fingerprint: string): Promise<CertificateEntity> {
    const certificate = await this.certificates.findByFingerprint(fingerprint);
    if (!certificate) throw new NotFoundException('Certificate not found.');
    return certificate;
  }
}

/** Serial numbers as people paste them: any case, colons or spaces; leading zero bytes dropped. */
function normaliseSerial(input: string): string | null {
  const hex = input.replace(/[:\s]/g, '').toLowerCase();
  if (!/^[0-9a-f]+$/.test(hex)) return null;
  return hex.replace(/^(00)+(?=..)/, '');
}
