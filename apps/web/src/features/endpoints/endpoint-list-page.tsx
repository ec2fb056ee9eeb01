import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { api } from '../../api/client';
import { useAuth } from '../../auth/auth-context';
import { CsvButton } from '../../ui/csv-button';
import { DateTime, DaysRemaining } from '../../ui/expiry';
import { LoadError, useTitle } from '../../ui/layout';
import { PAGE_SIZE, Pager, parseBool, rangeText, useListAddress } from '../../ui/paged-list';
import { SortHeader } from '../../ui/sort-header';
import { useThresholds } from '../../ui/thresholds';
import { useApiQuery } from '../../ui/use-api-query';
import { FINDING_CODES, FINDING_LABELS, FindingBadges } from './endpoint-findings';

type EndpointType = 'host' | 'saml' | 'manual';
const TYPES: EndpointType[] = ['host', 'saml', 'manual'];
type SortField = 'name' | 'daysRemaining' | 'lastScannedAt' | 'createdAt';
type Sort = SortField | `-${SortField}`;
const SORTS: Sort[] = ['name', 'daysRemaining', 'lastScannedAt', 'createdAt'].flatMap((field) => [field as SortField, `-${field}` as Sort]);

interface EndpointHealthFacts {
  enabled: boolean;
  errorSince: string | null;
  lastScanError: string | null;
  soonestNotAfter: string | null;
  daysRemaining: number | null;
}

/**
 * One word for an endpoint, expiry before scan state: a certificate that expired, or expires
 * within the largest alert threshold (when the first alert goes out), matters more than whether
 * the last scan worked; "ok" means neither. A failing scan keeps its error in the hover text.
 */
export function EndpointHealth({ endpoint, notice }: { endpoint: EndpointHealthFacts; notice: number }) {
  const { soonestNotAfter, daysRemaining } = endpoint;
  if (soonestNotAfter !== null && daysRemaining !== null) {
    if (Date.parse(soonestNotAfter) <= Date.now()) return <span className="health urgency urgency-expired">Expired</span>;
    if (daysRemaining <= notice) return <span className="health urgency urgency-critical">Expires within {notice} days</span>;
  }
  if (!endpoint.enabled) return <span className="health muted">Scanning paused</span>;
  if (endpoint.errorSince) {
    return (
      <span className="health urgency urgency-warning" title={endpoint.lastScanError ?? undefined}>
        Scan failing
      </span>
    );
  }
  return <span className="health urgency urgency-ok">OK</span>;
}

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
  const sortParam = params.get('sort');
  // Natural name order ("App 2" before "App 10") is the API's default and the list's.
  const sort: Sort = SORTS.find((candidate) => candidate === sortParam) ?? 'name';
  const expiresWithin = params.get('expires_within') ?? '';
  const findingParam = params.get('finding');
  const finding = FINDING_CODES.find((code) => code === findingParam);
  const hasFindings = parseBool(params.get('has_findings'));
  const [search, setSearch] = useState(q);
  const [tagInput, setTagInput] = useState(tags.join(', '));
  const [withinInput, setWithinInput] = useState(expiresWithin);
  const thresholds = useThresholds();
  const notice = Math.max(...thresholds);

  const filters = {
    q: q || undefined,
    type,
    enabled,
    has_error: hasError,
    tag: tags.length > 0 ? tags : undefined,
    expires_within: /^\d+$/.test(expiresWithin) ? Number(expiresWithin) : undefined,
    finding: finding ? [finding] : undefined,
    has_findings: hasFindings,
    sort,
  };
  const { data, error, loading } = useApiQuery(params.toString(), () =>
    api.GET('/api/v1/endpoints', { params: { query: { ...filters, limit: PAGE_SIZE, offset } } }),
  );
  const submitSearch = (event: FormEvent) => {
    event.preventDefault();
    const tagList = tagInput
      .split(',')
      .map((tag) => tag.trim())
      .filter((tag) => tag !== '');
    update({ q: search.trim(), tag: tagList, expires_within: withinInput.trim() });
  };

  const total = data?.totalCount ?? 0;
  // The default order stays out of the address, so the plain list keeps its plain address.
  const onSort = (next: Sort) => update({ sort: next === 'name' ? null : next });

  return (
    <>
      <div className="title-row">
        <h1>Endpoints</h1>
        <div className="row-actions">
          {/* Every endpoint the filters match, in the list's order, not just this page. */}
          <CsvButton
            list="endpoints"
            fetchCsv={() =>
              api.GET('/api/v1/endpoints', {
                params: { query: { ...filters, format: 'csv' } },
                headers: { Accept: 'text/csv' },
                parseAs: 'blob',
              })
            }
          />
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
          <label htmlFor="filter-within">Expires within (days)</label>
          <input
            id="filter-within"
            type="number"
            inputMode="numeric"
            min={0}
            max={3650}
            step={1}
            placeholder="Any"
            value={withinInput}
            onChange={(e) => setWithinInput(e.target.value)}
          />
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
        <div className="field">
          <label htmlFor="filter-finding">Findings</label>
          <select
            id="filter-finding"
            value={finding ?? (hasFindings === undefined ? '' : String(hasFindings))}
            onChange={(e) => {
              const value = e.target.value;
              const byCode = FINDING_CODES.find((code) => code === value);
              update({ finding: byCode ?? null, has_findings: byCode || value === '' ? null : value });
            }}
          >
            <option value="">Any</option>
            <option value="true">Any finding</option>
            <option value="false">No findings</option>
            {FINDING_CODES.map((code) => (
              <option key={code} value={code}>
                {FINDING_LABELS[code]}
              </option>
            ))}
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
                <SortHeader label="Name" field="name" sort={sort} onSort={onSort} />
                <SortHeader label="Days remaining" field="daysRemaining" sort={sort} onSort={onSort} />
                <th scope="col">Health</th>
                <th scope="col">Findings</th>
                <th scope="col">Type</th>
                <th scope="col">Target</th>
                <th scope="col">Tags</th>
                <SortHeader label="Last scanned" field="lastScannedAt" sort={sort} onSort={onSort} />
                <SortHeader label="Created" field="createdAt" sort={sort} onSort={onSort} />
              </tr>
            </thead>
            <tbody>
              {data.items.map((endpoint) => (
                <tr key={endpoint.id}>
                  <td>
                    <Link to={`/endpoints/${endpoint.id}`}>{endpoint.name}</Link>
                  </td>
                  <td>
                    {endpoint.soonestNotAfter !== null && endpoint.daysRemaining !== null ? (
                      <DaysRemaining daysRemaining={endpoint.daysRemaining} notAfter={endpoint.soonestNotAfter} />
                    ) : (
                      <span className="muted">no certificate</span>
                    )}
                  </td>
                  <td>
                    <EndpointHealth endpoint={endpoint} notice={notice} />
                  </td>
                  <td>
                    <FindingBadges findings={endpoint.findings} />
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
                    <DateTime value={endpoint.createdAt} dateOnly />
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
