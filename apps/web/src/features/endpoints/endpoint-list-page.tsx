import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { api } from '../../api/client';
import { useAuth } from '../../auth/auth-context';
import { DateTime } from '../../ui/expiry';
import { LoadError, useTitle } from '../../ui/layout';
import { useApiQuery } from '../../ui/use-api-query';

const PAGE_SIZE = 50;
type EndpointType = 'host' | 'saml' | 'manual';
const TYPES: EndpointType[] = ['host', 'saml', 'manual'];

function parseBool(value: string | null): boolean | undefined {
  return value === 'true' ? true : value === 'false' ? false : undefined;
}

/**
 * GET /api/v1/endpoints with the route's filters and server-side paging: one page of 50 rows at a
 * time whatever the total, so 100,000 endpoints cost what 50 do. The filters live in the address,
 * so a filtered list can be bookmarked and Back returns to it.
 */
export function EndpointListPage() {
  useTitle('Endpoints');
  const { can } = useAuth();
  const [params, setParams] = useSearchParams();
  const q = params.get('q') ?? '';
  const typeParam = params.get('type');
  const type = TYPES.find((candidate) => candidate === typeParam);
  const enabled = parseBool(params.get('enabled'));
  const hasError = parseBool(params.get('has_error'));
  const tags = params.getAll('tag');
  const page = Math.max(0, Number.parseInt(params.get('page') ?? '0', 10) || 0);
  const [search, setSearch] = useState(q);
  const [tagInput, setTagInput] = useState(tags.join(', '));

  const { data, error, loading } = useApiQuery(params.toString(), () =>
    api.GET('/api/v1/endpoints', {
      params: {
        query: {
          q: q || undefined,
          type,
          enabled,
          has_error: hasError,
          tag: tags.length > 0 ? tags : undefined,
          limit: PAGE_SIZE,
          offset: page * PAGE_SIZE,
        },
      },
    }),
  );

  const update = (changes: Record<string, string | string[] | null>) => {
    const next = new URLSearchParams(params);
    for (const [name, value] of Object.entries(changes)) {
      next.delete(name);
      if (Array.isArray(value)) for (const item of value) next.append(name, item);
      else if (value !== null && value !== '') next.set(name, value);
    }
    if (!('page' in changes)) next.delete('page');
    setParams(next);
  };

  const submitSearch = (event: FormEvent) => {
    event.preventDefault();
    const tagList = tagInput
      .split(',')
      .map((tag) => tag.trim())
      .filter((tag) => tag !== '');
    update({ q: search.trim(), tag: tagList });
  };

  const total = data?.totalCount ?? 0;
  const first = total === 0 ? 0 : page * PAGE_SIZE + 1;
  const last = Math.min(total, (page + 1) * PAGE_SIZE);
  const lastPage = Math.max(0, Math.ceil(total / PAGE_SIZE) - 1);

  return (
    <>
      <div className="title-row">
        <h1>Endpoints</h1>
        {can('endpoints:edit') && (
          <Link className="button primary" to="/endpoints/new">
            Add endpoint
          </Link>
        )}
      </div>

      <form className="filters" role="search" onSubmit={submitSearch}>
        <div className="field">
          <label htmlFor="filter-q">Search</label>
          <input
            id="filter-q"
            type="search"
            placeholder="Name, DNS name or metadata URL"
            value={search}
            onChange={(e) => setSearch(e.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor="filter-tags">Tags</label>
          <input id="filter-tags" placeholder="env:prod, team:web" value={tagInput} onChange={(e) => setTagInput(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="filter-type">Type</label>
          <select id="filter-type" value={type ?? ''} onChange={(e) => update({ type: e.target.value })}>
            <option value="">Any</option>
            <option value="host">Host</option>
            <option value="saml">SAML</option>
            <option value="manual">Manual</option>
          </select>
        </div>
        <div className="field">
          <label htmlFor="filter-enabled">Scanning</label>
          <select id="filter-enabled" value={params.get('enabled') ?? ''} onChange={(e) => update({ enabled: e.target.value })}>
            <option value="">Any</option>
            <option value="true">Enabled</option>
            <option value="false">Disabled</option>
          </select>
        </div>
        <div className="field">
          <label htmlFor="filter-error">Scan state</label>
          <select id="filter-error" value={params.get('has_error') ?? ''} onChange={(e) => update({ has_error: e.target.value })}>
            <option value="">Any</option>
            <option value="true">Failing</option>
            <option value="false">Healthy</option>
          </select>
        </div>
        <button type="submit">Apply</button>
      </form>

      <LoadError message={error} />
      <p role="status" className="muted">
        {loading ? 'Loading…' : total === 0 ? 'No endpoint matches.' : `Endpoints ${first}–${last} of ${total}`}
      </p>

      {data && data.items.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Type</th>
              <th scope="col">Target</th>
              <th scope="col">Tags</th>
              <th scope="col">Last scanned</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {data.items.map((endpoint) => (
              <tr key={endpoint.id}>
                <td>
                  <Link to={`/endpoints/${endpoint.id}`}>{endpoint.name}</Link>
                </td>
                <td>{endpoint.type}</td>
                <td className="mono">
                  {endpoint.type === 'host' ? `${endpoint.dnsName ?? ''}:${endpoint.port ?? ''}` : (endpoint.metadataUrl ?? '')}
                </td>
                <td>{endpoint.tags.join(', ')}</td>
                <td>
                  <DateTime value={endpoint.lastScannedAt} />
                </td>
                <td>
                  {!endpoint.enabled ? (
                    <span className="muted">disabled</span>
                  ) : endpoint.errorSince ? (
                    <span className="expiry-expired" title={endpoint.lastScanError ?? undefined}>
                      failing
                    </span>
                  ) : (
                    'ok'
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}

      {total > PAGE_SIZE && (
        <nav className="pager" aria-label="Pages">
          <button type="button" disabled={page === 0} onClick={() => update({ page: String(page - 1) })}>
            Previous page
          </button>
          <span>
            Page {page + 1} of {lastPage + 1}
          </span>
          <button type="button" disabled={page >= lastPage} onClick={() => update({ page: String(page + 1) })}>
            Next page
          </button>
        </nav>
      )}
    </>
  );
}
