import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { api } from '../../api/client';
import { useAuth } from '../../auth/auth-context';
import { DateTime } from '../../ui/expiry';
import { LoadError, useTitle } from '../../ui/layout';
import { useAction } from '../../ui/use-action';
import { PAGE_SIZE, Pager, parseBool, rangeText, useListAddress } from '../../ui/paged-list';
import { useApiQuery } from '../../ui/use-api-query';
import { attachmentName, saveBlob } from '../../ui/csv-download';

type EndpointType = 'host' | 'saml' | 'manual';
const TYPES: EndpointType[] = ['host', 'saml', 'manual'];

/**
 * GET /api/v1/endpoints with the route's filters and server-side paging: one page of 50 rows at a
 * time whatever the total, so 100,000 endpoints cost what 50 do. The filters live in the address,
 * so a filtered list can be bookmarked and Back returns to it.
 */
export function EndpointListPage() {
  useTitle('Endpoints');
  const { can } = useAuth();
  const { params, page, offset, update } = useListAddress();
  const q = params.get('q') ?? '';
  const typeParam = params.get('type');
  const type = TYPES.find((candidate) => candidate === typeParam);
  const enabled = parseBool(params.get('enabled'));
  const hasError = parseBool(params.get('has_error'));
  const tags = params.getAll('tag');
  const [search, setSearch] = useState(q);
  const [tagInput, setTagInput] = useState(tags.join(', '));

  const filters = { q: q || undefined, type, enabled, has_error: hasError, tag: tags.length > 0 ? tags : undefined };
  const { data, error, loading } = useApiQuery(params.toString(), () =>
    api.GET('/api/v1/endpoints', { params: { query: { ...filters, limit: PAGE_SIZE, offset } } }),
  );
  const download = useAction();
  // Every endpoint the filters match, not just this page (the CSV form ignores the paging).
  const downloadCsv = () => {
    let answer: Response | undefined;
    const fallback = `certkeeper-endpoints-${new Date().toISOString().slice(0, 10)}.csv`;
    return download.run(
      async () => {
        const result = await api.GET('/api/v1/endpoints', {
          params: { query: { ...filters, format: 'csv' } },
          headers: { Accept: 'text/csv' },
          parseAs: 'blob',
        });
        answer = result.response;
        return result;
      },
      (blob) => saveBlob(blob, answer ? attachmentName(answer, fallback) : fallback),
    );
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

  return (
    <>
      <div className="title-row">
        <h1>Endpoints</h1>
        <div className="row-actions">
          <button type="button" disabled={download.busy} onClick={() => void downloadCsv()}>
            {download.busy ? 'Preparing CSV…' : 'Download CSV'}
          </button>
          {can('endpoints:edit') && (
            <>
              <Link className="button" to="/endpoints/import">
                Import from CSV
              </Link>
              <Link className="button primary" to="/endpoints/new">
                Add endpoint
              </Link>
            </>
          )}
        </div>
      </div>
      {download.error && (
        <p className="error" role="alert">
          {download.error}
        </p>
      )}

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
        {loading ? 'Loading…' : total === 0 ? 'No endpoint matches.' : rangeText('Endpoints', page, data?.items.length ?? 0, total)}
      </p>

      {data && data.items.length > 0 && (
        <div className="table-scroll">
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
        </div>
      )}

      <Pager page={page} total={total} onPage={(next) => update({ page: String(next) })} />
    </>
  );
}
