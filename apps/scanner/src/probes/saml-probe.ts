import { randomUUID } from 'node:crypto';
import type { SamlScanResult, SamlWorkItem } from '@certkeeper/domain/protocol';
import { parseSamlMetadata } from '@certkeeper/domain/saml';
import { fetchSamlMetadata, type SamlFetchOptions } from './saml-fetch';

/**
 * Fetches an endpoint's metadata within the size and time limits and checks that it is usable
 * SAML metadata before sending it; the API parses it again and trusts only its own reading.
 */
export async function probeSaml(
  item: SamlWorkItem,
  options: SamlFetchOptions = {},
  now: () => Date = () => new Date(),
): Promise<SamlScanResult> {
  const scannedAt = now().toISOString();
  const base = { resultId: randomUUID(), endpointId: item.endpointId, type: 'saml' as const, scannedAt };
  const fetched = await fetchSamlMetadata(item.metadataUrl, options);
  if (!fetched.ok)
    return { ...base, success: false, error: fetched.error, finalUrl: fetched.finalUrl, resolvedIp: null, document: null, digest: null };
  const parsed = parseSamlMetadata(fetched.document);
  if (parsed.entities.length === 0) {
    const reason = parsed.problems.map((problem) => problem.message).join('; ') || 'no entity found';
    return {
      ...base,
      success: false,
      error: `not usable SAML metadata: ${reason}`,
      finalUrl: fetched.finalUrl,
      resolvedIp: fetched.remoteAddress,
      document: null,
      digest: fetched.digest,
    };
  }
  return {
    ...base,
    success: true,
    error: null,
    finalUrl: fetched.finalUrl,
    resolvedIp: fetched.remoteAddress,
    document: fetched.document,
    digest: fetched.digest,
  };
}
