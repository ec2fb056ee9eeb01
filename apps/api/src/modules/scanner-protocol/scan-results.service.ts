import { Injectable } from '@nestjs/common';
import type { HostScanResult, ResultOutcome, SamlScanResult, ScanResult } from '@certkeeper/domain/protocol';
import { FindingsService } from '../findings/findings.service';
import { HostResultsService } from './host-results.service';
import { SamlResultsService } from './saml-results.service';
import type { CheckedResult } from './scanner-protocol.dto';
import { type Assignment, ScannerProtocolRepository } from './scanner-protocol.repository';
import { type Accepted, GONE } from './scan-outcomes';

/** Why a result may not be applied to the endpoint it names, or null when it may. */
function refusalOf(assignment: Assignment | undefined, result: ScanResult): { code: 400 | 403 | 404; error: string } | null {
  if (!assignment) return GONE;
  if (!assignment.assigned) return { code: 403, error: 'this endpoint is not assigned to this scanner' };
  if (assignment.type !== result.type) return { code: 400, error: `this endpoint is a ${assignment.type} endpoint` };
  return null;
}

/**
 * A post of scan results. It trusts nothing an agent computes: each result is checked against the
 * caller's assignment here, then host results go to HostResultsService and SAML results to
 * SamlResultsService, which parse certificates and metadata themselves. One bad result never
 * blocks the others, and a result id seen before changes nothing.
 */
@Injectable()
export class ScanResultsService {
  constructor(
    private readonly protocol: ScannerProtocolRepository,
    private readonly hosts: HostResultsService,
    private readonly samls: SamlResultsService,
    private readonly findings: FindingsService,
  ) {}

  /** The results of one post, checked at the edge (ScanResultsPipe): one outcome each, in order. */
  async ingestResults(scannerId: string, checked: CheckedResult[]): Promise<ResultOutcome[]> {
    const endpointIds = checked.flatMap((item) => (item.valid ? [item.result.endpointId] : []));
    const assignments = await this.protocol.findAssignments([...new Set(endpointIds)], scannerId);

    const outcomes: ResultOutcome[] = new Array<ResultOutcome>(checked.length);
    const hosts: Accepted<HostScanResult>[] = [];
    const samls: Accepted<SamlScanResult>[] = [];
    checked.forEach((item, index) => {
      if (!item.valid) {
        outcomes[index] = { resultId: item.resultId, endpointId: item.endpointId, status: 'rejected', code: 400, error: item.error };
        return;
      }
      const { result } = item;
      const refusal = refusalOf(assignments.get(result.endpointId), result);
      if (refusal) outcomes[index] = { resultId: result.resultId, endpointId: result.endpointId, status: 'rejected', ...refusal };
      else if (result.type === 'host') hosts.push({ index, result });
      else samls.push({ index, result });
    });

    const settle = (index: number, outcome: ResultOutcome) => (outcomes[index] = outcome);
    const [hostsChanged] = await Promise.all([this.hosts.apply(scannerId, hosts, settle), this.samls.apply(scannerId, samls, settle)]);
    // A result can change what is wrong with its endpoint (scan_failing, the certificate, the chain, the TLS profile).
    const samlsAccepted = samls.flatMap(({ index }) => (outcomes[index].status === 'accepted' ? [outcomes[index].endpointId] : []));
    await this.findings.recompute([...hostsChanged, ...samlsAccepted]);
    return outcomes;
  }
}
