import { Injectable, NotFoundException } from '@nestjs/common';
import type { Transaction } from '../../database/transaction';
import { RenewalsRepository } from '../renewals/renewals.repository';
import { SupersedingPolicy } from '../renewals/superseding-policy';
import { type Replacement, RotationsService } from '../rotations/rotations.service';
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
 * manual uploads (`recordSighting`), SAML metadata and host handshakes (`applySightings`) record
 * their sightings through the same two steps, set-based, a few statements however many endpoints.
 *
 * - unknown link            -> new current link
 * - historical link seen    -> reactivated (never duplicated)
 * - current link seen       -> stays current, lastSeenAt moves
 * - current link not seen   -> history (replace mode only), in `moveToHistory` alone
 *
 * A role whose current certificates left while others became current rotated: recorded in the
 * same transaction (docs/api-contract.md section 16). A first certificate is no rotation. The
 * renewal each current link of a sighted endpoint keeps (section 16's rule) is brought up to date
 * in the same transaction too: a link that arrives may be superseded already.
 */
@Injectable()
export class LinksService {
  constructor(
    private readonly links: LinksRepository,
    private readonly rotations: RotationsService,
    private readonly renewals: RenewalsRepository,
    private readonly superseding: SupersedingPolicy,
  ) {}

  /**
   * One sighting in the caller's transaction, the endpoint's row locked first (404 when it is
   * gone), answering what became of each link: an upload names them.
   */
  async recordSighting(sighting: Sighting, transaction: Transaction): Promise<SightingOutcome> {
    if (!(await this.links.lockEndpoint(sighting.endpointId, transaction))) throw new NotFoundException('Endpoint not found.');
    const seen = seenLinks([sighting]);
    const retired = await this.moveToHistory(sighting.mode === 'replace' ? [sighting] : [], seen, transaction);
    const touched = await this.links.upsertSeenWithPrior(seen, transaction);
    const outcome: SightingOutcome = { created: [], reactivated: [], alreadyCurrent: [], retired: retired.map((link) => link.fingerprint) };
    for (const link of touched) {
      if (link.wasCurrent === null) outcome.created.push(link.fingerprint);
      else if (link.wasCurrent) outcome.alreadyCurrent.push(link.fingerprint);
      else outcome.reactivated.push(link.fingerprint);
    }
    await this.rotations.record(
      [
        {
          endpointId: sighting.endpointId,
          certUse: sighting.certUse,
          retired: outcome.retired,
          arrived: [...outcome.created, ...outcome.reactivated],
        },
      ],
      transaction,
    );
    await this.refreshSuperseded([sighting], transaction);
    return outcome;
  }

  /**
   * Sightings of many endpoints and roles at once (scan results), without an answer. The caller
   * holds the endpoints' row locks and names each (endpoint, role) at most once. The seen links
   * are created or made current before the others move to history: an endpoint whose certificate
   * rotates then has its soonest expiry written once, not cleared and set again.
   */
  async applySightings(sightings: Sighting[], transaction: Transaction): Promise<void> {
    if (sightings.length === 0) return;
    const seen = seenLinks(sightings);
    const arrived = await this.links.upsertSeen(seen, transaction);
    const retired = await this.moveToHistory(
      sightings.filter((sighting) => sighting.mode === 'replace'),
      seen,
      transaction,
    );
    if (retired.length > 0) {
      const replacements = new Map<string, Replacement>();
      for (const link of retired) {
        const replacement = replacements.get(roleKey(link)) ?? {
          endpointId: link.endpointId,
          certUse: link.certUse,
          retired: [],
          arrived: [],
        };
        replacement.retired.push(link.fingerprint);
        replacements.set(roleKey(link), replacement);
      }
      for (const link of arrived) replacements.get(roleKey(link))?.arrived.push(link.fingerprint);
      await this.rotations.record([...replacements.values()], transaction);
    }
    // A link seen again keeps what it kept (the hourly pass moves it with the clock); one that
    // left was cleared as it left: only the endpoints where a link arrived need the rule asked.
    await this.refreshSuperseded(arrived, transaction);
  }

  /** The renewal each current link of these endpoints keeps, brought up to date. */
  private async refreshSuperseded(links: { endpointId: string }[], transaction: Transaction): Promise<void> {
    if (links.length === 0) return;
    const endpointIds = [...new Set(links.map((link) => link.endpointId))];
    await this.renewals.refreshSuperseded({ endpointIds }, await this.superseding.window(), transaction);
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

/** Every (endpoint, role, fingerprint) the sightings name, each fingerprint once per sighting. */
function seenLinks(sightings: Sighting[]): LinkTriples {
  const seen: LinkTriples = { endpointIds: [], certUses: [], fingerprints: [] };
  for (const sighting of sightings) {
    for (const fingerprint of new Set(sighting.fingerprints)) {
      seen.endpointIds.push(sighting.endpointId);
      seen.certUses.push(sighting.certUse);
      seen.fingerprints.push(fingerprint);
    }
  }
  return seen;
}
