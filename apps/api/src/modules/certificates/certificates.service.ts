import { BadRequestException, ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import {
  certificateCoversHostname,
  expiringWithinBefore,
  hostnameCoverCandidates,
  type ParsedCertificate,
  parseFingerprint,
} from '@certkeeper/domain';
import { Clock } from '../../common/clock';
import type { CsvExport } from '../../common/http/csv/csv-export';
import type { Transaction } from '../../database/transaction';
import { type ActorContext, AuditService } from '../audit/audit.service';
import { EndpointsService } from '../endpoints/endpoints.service';
import type { CertUse } from '../links/endpoint-certificate.entity';
import { type LinkedEndpointRow, LinksRepository } from '../links/links.repository';
import { LinksService } from '../links/links.service';
import type { CertificateEntity } from './certificate.entity';
import {
  type ActiveCriteria,
  type ActiveLinkRow,
  type CertificateCriteria,
  CertificatesRepository,
  type CertificateSummary,
} from './certificates.repository';
import { RenewalsRepository } from '../renewals/renewals.repository';
import { SupersedingPolicy } from '../renewals/superseding-policy';
import { TrustVerdictsService } from '../trust/trust-verdicts.service';
import { FindingsService } from '../findings/findings.service';
import { RevocationRepository } from '../revocation/revocation.repository';
import { RenewalInfoRepository } from '../renewal-info/renewal-info.repository';
import {
  ActiveCertificateDto,
  type ActiveQueryDto,
  type CertificateDetailDto,
  type CertificateListQueryDto,
  type CertificateSearchItemDto,
  CertificateSummaryDto,
  type EndpointSearchItemDto,
  type EndpointUploadResultDto,
} from './certificates.dto';
import { toActiveCertificate, toCertificateDetail, toCertificateSummary } from './certificates.mapper';
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
    private readonly renewalInfo: RenewalInfoRepository,
    private readonly findings: FindingsService,
    private readonly revocations: RevocationRepository,
    private readonly clock: Clock,
    private readonly superseding: SupersedingPolicy,
    private readonly renewals: RenewalsRepository,
  ) {}

  /**
   * Stores parsed certificates in the caller's transaction and gives the new ones their trust
   * verdicts there; returns the new fingerprints. Every way a certificate enters goes through here.
   */
  async storeParsed(certificates: ParsedCertificate[], transaction: Transaction): Promise<Set<string>> {
    const created = await this.certificates.storeMany(certificates, transaction);
    if (created.size > 0) await this.renewals.recordPairs([...created], await this.superseding.window(), transaction);
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
    const [issuerFingerprint, current, historical, renewalInfo, revocation] = await Promise.all([
      this.certificates.findIssuerFingerprint(certificate),
      this.linkQueries.findEndpointsOf(certificate.fingerprint, true),
      this.linkQueries.findEndpointsOf(certificate.fingerprint, false),
      this.renewalInfo.find(certificate.fingerprint),
      this.revocations.findByFingerprint(certificate.fingerprint),
    ]);
    return toCertificateDetail(certificate, { issuerFingerprint, current, historical, renewalInfo, revocation }, this.clock.now());
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
      // The links it superseded keep another renewal, or none.
      const renewed = await this.renewals.findRenewed([fingerprint], transaction);
      await this.certificates.delete(fingerprint, transaction);
      if (renewed.length > 0)
        await this.renewals.refreshSuperseded({ certificates: renewed }, await this.superseding.window(), transaction);
      await this.audit.record(actor, { action: 'certificate:delete', targetType: 'certificate', targetId: fingerprint }, transaction);
    });
  }

  /** Hands each item of the window to `onItem` as its row arrives; resolves to the number of all matches. */
  listCertificates(query: CertificateListQueryDto, onItem: (item: CertificateSummaryDto) => void): Promise<number> {
    const now = this.clock.now();
    const filter = { ...certificateCriteria(query, now), limit: query.limit, offset: query.offset };
    return this.certificates.readPage(filter, (row) => onItem(toCertificateSummary(row, now)));
  }

  /** Every certificate the list filters match, as the CSV form of the same items. */
  exportCertificates(query: CertificateListQueryDto): CsvExport<CertificateSummary> {
    const now = this.clock.now();
    const criteria = certificateCriteria(query, now);
    return {
      list: 'certificates',
      item: CertificateSummaryDto,
      open: () => this.certificates.streamMatching(criteria),
      toItem: (row) => toCertificateSummary(row, now),
      now,
    };
  }

  /**
   * The active list's window, or with `withinDays` the expiring list's (daysRemaining at most
   * withinDays, expired included): each item to `onItem`; resolves to the number of all matches.
   */
  async listActive(query: ActiveQueryDto, withinDays: number | null, onItem: (item: ActiveCertificateDto) => void): Promise<number> {
    const now = this.clock.now();
    const criteria = activeCriteria(query, withinDays, now);
    const filter = { ...criteria, limit: query.limit, offset: query.offset };
    return this.certificates.readActivePage(filter, (row) => onItem(toActiveCertificate(row, now)));
  }

  /** Every current link the active or expiring filters match, as the CSV form of the same items. */
  exportActive(query: ActiveQueryDto, withinDays: number | null): CsvExport<ActiveLinkRow> {
    const now = this.clock.now();
    return {
      list: withinDays === null ? 'certificates-active' : 'certificates-expiring',
      item: ActiveCertificateDto,
      open: () => this.certificates.streamActive(activeCriteria(query, withinDays, now)),
      toItem: (row) => toActiveCertificate(row, now),
      now,
    };
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
      items.push(...endpoints.items.map((endpoint) => ({ kind: 'endpoint' as const, ...endpoint })));
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

function certificateCriteria(query: CertificateListQueryDto, now: Date): CertificateCriteria {
  const { q, isCa, selfSigned, expired, inUse, anchors } = query;
  return { q, isCa, selfSigned, expired, inUse, anchors, now };
}

function activeCriteria(query: ActiveQueryDto, withinDays: number | null, now: Date): ActiveCriteria {
  return {
    notAfterBefore: withinDays === null ? undefined : expiringWithinBefore(withinDays, now),
    type: query.type,
    tags: query.tag,
    certUse: query.certUse,
  };
}
