import { Injectable, NotFoundException } from '@nestjs/common';
import type { Transaction } from '../../database/transaction';
import { RotationsService } from '../rotations/rotations.service';
import type { CertUse } from './endpoint-certificate.entity';
import { type LinkRef, LinksRepository, type LinkTriples } from './links.repository';

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
 * manual uploads, SAML metadata and host handshakes all record their sightings through
 * `applySightings`, set-based, a few statements however many endpoints.
 *
 * - unknown link            -> new current link
 * - historical link seen    -> reactivated (never duplicated)
 * - current link seen       -> stays current, lastSeenAt moves
 * - current link not seen   -> history (replace mode only), in `moveToHistory` alone
 *
 * A role whose current certificates left while others became current rotated: recorded in the
 * same transaction (docs/api-contract.md section 16). A first certificate is no rotation.
 */
@Injectable()
export class LinksService {
  constructor(
    private readonly links: LinksRepository,
    private readonly rotations: RotationsService,
  ) {}

  /** One sighting in the caller's transaction, the endpoint's row locked first (404 when it is gone). */
  async recordSighting(sighting: Sighting, transaction: Transaction): Promise<SightingOutcome> {
    if (!(await this.links.lockEndpoint(sighting.endpointId, transaction))) throw new NotFoundException('Endpoint not found.');
    const [outcome] = await this.applySightings([sighting], transaction);
    return outcome;
  }

  /**
   * Sightings of many endpoints and roles at once, one outcome each, in order. The caller holds
   * the endpoints' row locks and names each (endpoint, role) at most once. The links not seen
   * move to history before the seen ones are created or made current.
   */
  async applySightings(sightings: Sighting[], transaction: Transaction): Promise<SightingOutcome[]> {
    if (sightings.length === 0) return [];
    const seen: LinkTriples = { endpointIds: [], certUses: [], fingerprints: [] };
    for (const sighting of sightings) {
      for (const fingerprint of new Set(sighting.fingerprints)) {
        seen.endpointIds.push(sighting.endpointId);
        seen.certUses.push(sighting.certUse);
        seen.fingerprints.push(fingerprint);
      }
    }
    const replaced = sightings.filter((sighting) => sighting.mode === 'replace');
    const retired = await this.moveToHistory(replaced, seen, transaction);
    const touched = await this.links.upsertSeen(seen, transaction);

    const outcomes = new Map<string, SightingOutcome>(
      sightings.map((sighting) => [roleKey(sighting), { created: [], reactivated: [], alreadyCurrent: [], retired: [] }]),
    );
    for (const link of retired) outcomes.get(roleKey(link))!.retired.push(link.fingerprint);
    for (const link of touched) {
      const outcome = outcomes.get(roleKey(link))!;
      if (link.wasCurrent === null) outcome.created.push(link.fingerprint);
      else if (link.wasCurrent) outcome.alreadyCurrent.push(link.fingerprint);
      else outcome.reactivated.push(link.fingerprint);
    }
    const results = sightings.map((sighting) => outcomes.get(roleKey(sighting))!);
    await this.rotations.record(
      sightings.map(({ endpointId, certUse }, index) => ({
        endpointId,
        certUse,
        retired: results[index].retired,
        arrived: [...results[index].created, ...results[index].reactivated],
      })),
      transaction,
    );
    return results;
  }

  /**
   * The one place a current link becomes history: in each replaced (endpoint, role), the current
   * links not among those seen. Whatever follows a certificate leaving an endpoint hangs here.
   */
  private moveToHistory(replaced: Sighting[], seen: LinkTriples, transaction: Transaction): Promise<LinkRef[]> {
    if (replaced.length === 0) return Promise.resolve([]);
    return this.links.retireUnseen(
      {
        endpointIds: replaced.map((sighting) => sighting.endpointId),
        certUses: replaced.map((sighting) => sighting.certUse),
      },
      seen,
      transaction,
    );
  }
}

const roleKey = (link: { endpointId: string; certUse: CertUse }) => `${link.endpointId} ${link.certUse}`;
