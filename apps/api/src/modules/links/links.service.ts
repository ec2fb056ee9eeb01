import { Injectable, NotFoundException } from '@nestjs/common';
import type { Transaction } from '../../database/transaction';
import type { CertUse } from './endpoint-certificate.entity';
import { type LinkPairs, LinksRepository } from './links.repository';

export interface Sighting {
  endpointId: string;
  certUse: CertUse;
  /** The certificates now presented in this role; they must already be stored. */
  fingerprints: string[];
  /**
   * replace: these are all the current certificates of this role (a handshake's leaf, a SAML
   * document's keys, an upload with replace=true); the others move to history.
   * add: these join the current ones (upload with replace=false, key rollover).
   */
  mode: 'replace' | 'add';
}

export interface SightingOutcome {
  created: string[];
  reactivated: string[];
  alreadyCurrent: string[];
  retired: string[];
}

/**
 * The link-currency state machine of docs/api-contract.md section 5, the only implementation:
 * manual uploads and scan ingestion both record their sightings here.
 *
 * - unknown link            -> new current link
 * - historical link seen    -> reactivated (never duplicated)
 * - current link seen       -> stays current, lastSeenAt moves
 * - current link not seen   -> history (replace mode only)
 */
@Injectable()
export class LinksService {
  constructor(private readonly links: LinksRepository) {}

  /** Applies a sighting in the caller's transaction, holding the endpoint's row lock. */
  async recordSighting(sighting: Sighting, transaction: Transaction): Promise<SightingOutcome> {
    if (!(await this.links.lockEndpoint(sighting.endpointId, transaction))) throw new NotFoundException('Endpoint not found.');
    const seen = new Set(sighting.fingerprints);
    const existing = await this.links.findLinks(sighting.endpointId, sighting.certUse, transaction);
    const known = new Map(existing.map((link) => [link.fingerprint, link.isCurrent]));

    const outcome: SightingOutcome = { created: [], reactivated: [], alreadyCurrent: [], retired: [] };
    for (const fingerprint of seen) {
      const current = known.get(fingerprint);
      if (current === undefined) outcome.created.push(fingerprint);
      else if (current) outcome.alreadyCurrent.push(fingerprint);
      else outcome.reactivated.push(fingerprint);
    }
    if (sighting.mode === 'replace') {
      outcome.retired = existing.filter((link) => link.isCurrent && !seen.has(link.fingerprint)).map((link) => link.fingerprint);
    }

    await this.links.markHistorical(sighting.endpointId, sighting.certUse, outcome.retired, transaction);
    await this.links.markSeen(sighting.endpointId, sighting.certUse, [...outcome.reactivated, ...outcome.alreadyCurrent], transaction);
    await this.links.insertCurrent(sighting.endpointId, sighting.certUse, outcome.created, transaction);
    return outcome;
  }

  /**
   * Replace-mode sightings of many endpoints in one role (scan ingestion), the same transitions
   * as recordSighting applied set-based: two statements however many endpoints, no outcome read
   * back. The caller holds the endpoints' row locks and names each endpoint once.
   */
  async recordScanSightings(certUse: CertUse, sightings: Omit<Sighting, 'certUse' | 'mode'>[], transaction: Transaction): Promise<void> {
    if (sightings.length === 0) return;
    const seen: LinkPairs = { endpointIds: [], fingerprints: [] };
    for (const sighting of sightings) {
      for (const fingerprint of new Set(sighting.fingerprints)) {
        seen.endpointIds.push(sighting.endpointId);
        seen.fingerprints.push(fingerprint);
      }
    }
    await this.links.retireUnseen(
      sightings.map((sighting) => sighting.endpointId),
      certUse,
      seen,
      transaction,
    );
    await this.links.upsertSeen(certUse, seen, transaction);
  }
}
