import { api, type Schemas } from '../../api/client';
import type { EndpointInput } from './endpoint-form';

type Endpoint = Schemas['EndpointResponseDto'];

/**
 * The endpoint a 409 on create or edit says already exists: the API's sentence names the rule
 * (docs/api-contract.md section 4: the same dnsName, port, ipAddress and scanner for a host, the
 * same metadataUrl and scanner for saml), so the list route is asked for the one that matches.
 * Null when none is found (deleted meanwhile, or the caller cannot see it).
 */
export async function findDuplicate(body: EndpointInput, exceptId?: string): Promise<Endpoint | null> {
  const wanted = body.type === 'host' ? body.dnsName : body.type === 'saml' ? body.metadataUrl : undefined;
  if (!wanted) return null;
  const [{ data }, scanners] = await Promise.all([
    api.GET('/api/v1/endpoints', { params: { query: { type: body.type, q: wanted, limit: 100 } } }),
    body.scannerId ? null : api.GET('/api/v1/scanners'),
  ]);
  // No scanner chosen means the default one, whose id the API stored.
  const scannerId = body.scannerId ?? scanners?.data?.find((scanner) => scanner.isDefault)?.id;
  return (
    (data?.items ?? []).find((endpoint) => endpoint.id !== exceptId && endpoint.scannerId === scannerId && sameTarget(endpoint, body)) ??
    null
  );
}

function sameTarget(endpoint: Endpoint, body: EndpointInput): boolean {
  if (body.type === 'saml') return endpoint.metadataUrl === body.metadataUrl;
  return (
    endpoint.dnsName?.toLowerCase() === body.dnsName?.toLowerCase() &&
    endpoint.port === body.port &&
    (endpoint.ipAddress ?? null) === (body.ipAddress ?? null)
  );
}
