import { parseArgs } from 'node:util';
import createClient from 'openapi-fetch';
import type { components, paths } from '../src/schema';

/*
 * A small program on the client generated from apps/api/openapi.json (`npm run openapi` writes
 * libs/api-client/src/schema.d.ts): sign in, then list the host endpoints that match a filter, page
 * by page. `npm run typecheck` compiles it against the generated types, so a renamed field or a
 * removed route fails the type check; apps/api/test/openapi-client.spec.ts runs it against a real
 * server. To run it by hand, after `npm run build`:
 *
 *   CERTKEEPER_URL=http://localhost:8080 CERTKEEPER_EMAIL=admin@localhost CERTKEEPER_PASSWORD=... \
 *     node dist/libs/api-client/example/list-host-endpoints.js [--tag env:prod]... [--page-size 50] [text to look for]
 */

export type Endpoint = components['schemas']['EndpointResponseDto'];

export interface HostEndpointListing {
  user: components['schemas']['LoginUserDto'];
  endpoints: Endpoint[];
  totalCount: number;
}

export interface HostEndpointFilter {
  /** Part of the name or DNS name, any case. */
  q?: string;
  /** An endpoint matches when it has any of them. */
  tags?: string[];
  /** Rows per request (1 to 500). */
  pageSize?: number;
}

export async function listHostEndpoints(
  baseUrl: string,
  credentials: { email: string; password: string },
  filter: HostEndpointFilter = {},
): Promise<HostEndpointListing> {
  // The list routes also answer text/csv (docs/api-contract.md section 11); this program reads JSON, and errors are plain text.
  const anonymous = createClient<paths, 'application/json' | 'text/plain'>({ baseUrl });
  const login = await anonymous.POST('/api/v1/auth/login', { body: credentials });
  if (!login.data) throw new Error(`Sign-in failed (${login.response.status}): ${String(login.error).trim()}`);

  const client = createClient<paths, 'application/json' | 'text/plain'>({
    baseUrl,
    headers: { Authorization: `Bearer ${login.data.token}` },
  });
  const endpoints: Endpoint[] = [];
  let totalCount = 0;
  do {
    const page = await client.GET('/api/v1/endpoints', {
      params: {
        query: { type: 'host', q: filter.q, tag: filter.tags, limit: filter.pageSize ?? 50, offset: endpoints.length },
      },
    });
    if (!page.data) throw new Error(`Listing endpoints failed (${page.response.status}): ${String(page.error).trim()}`);
    endpoints.push(...page.data.items);
    totalCount = page.data.totalCount;
    // Endpoints deleted while paging shrink the total; an empty page ends the walk either way.
    if (page.data.items.length === 0) break;
  } while (endpoints.length < totalCount);
  return { user: login.data.user, endpoints, totalCount };
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    options: { tag: { type: 'string', multiple: true }, 'page-size': { type: 'string' } },
    allowPositionals: true,
  });
  const { CERTKEEPER_URL = 'http://localhost:8080', CERTKEEPER_EMAIL, CERTKEEPER_PASSWORD } = process.env;
  if (!CERTKEEPER_EMAIL || !CERTKEEPER_PASSWORD) {
    process.stderr.write('Set CERTKEEPER_EMAIL and CERTKEEPER_PASSWORD (and CERTKEEPER_URL, default http://localhost:8080).\n');
    process.exitCode = 2;
    return;
  }
  const listing = await listHostEndpoints(
    CERTKEEPER_URL,
    { email: CERTKEEPER_EMAIL, password: CERTKEEPER_PASSWORD },
    { q: positionals[0], tags: values.tag, pageSize: values['page-size'] === undefined ? undefined : Number(values['page-size']) },
  );
  process.stdout.write(`Signed in as ${listing.user.email} (${listing.user.role}); ${listing.totalCount} host endpoints.\n`);
  for (const endpoint of listing.endpoints) {
    const state = endpoint.errorSince ? `failing since ${endpoint.errorSince}: ${endpoint.lastScanError}` : 'ok';
    process.stdout.write(`${endpoint.name}\t${endpoint.dnsName}:${endpoint.port}\t${state}\n`);
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
