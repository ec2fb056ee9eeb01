import { useState, type FormEvent, type ReactNode } from 'react';
import { Link } from 'react-router';
import { api } from '../../api/client';
import { useAuth } from '../../auth/auth-context';
import { splitList } from '../../ui/comma-list';
import { CsvButton } from '../../ui/csv-button';
import { csvRequest } from '../../ui/csv-download';
import { DateTime, DaysRemaining, type ExpiryLevel, UrgencyIcon } from '../../ui/expiry';
import { DaysFilter, ENDPOINT_TYPE_OPTIONS, endpointTypeOf, SelectFilter, TagsFilter } from '../../ui/filter-fields';
import { LoadError, useTitle } from '../../ui/layout';
import { PAGE_SIZE, Pager, parseBool, rangeText, useListAddress } from '../../ui/paged-list';
import { SortHeader } from '../../ui/sort-header';
import { useThresholds } from '../../ui/thresholds';
import { useApiQuery } from '../../ui/use-api-query';
import { FINDING_CODES, FINDING_LABELS, FindingBadges } from './endpoint-findings';
import '../../ui/card-table.css';

type SortField = 'name' | 'daysRemaining' | 'lastScannedAt' | 'createdAt';
type Sort = SortField | `-${SortField}`;
const SORTS: Sort[] = ['name', 'daysRemaining', 'lastScannedAt', 'createdAt'].flatMap((field) => [field as SortField, `-${field}` as Sort]);

const SCANNING_OPTIONS = [
  ['true', 'Enabled'],
  ['false', 'Disabled'],
] as const;
const SCAN_STATE_OPTIONS = [
  ['true', 'Failing'],
  ['false', 'Healthy'],
] as const;
const RENEWAL_OPTIONS = [
  ['true', 'Not deployed'],
  ['false', 'Deployed or none stored'],
] as const;

// Any finding or none, then each code: one choice that sets either `has_findings` or `finding`.
const FINDING_OPTIONS = [
  ['true', 'Any finding'],
  ['false', 'No findings'],
  ...FINDING_CODES.map((code) => [code, FINDING_LABELS[code]] as const),
] as const;

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
 * the last scan worked; "ok" means neither. Each has the urgency scale's shape beside its words
 * (ui/expiry.tsx), so it reads without the colour. A failing scan keeps its error in the hover text.
 */
export function EndpointHealth({ endpoint, notice }: { endpoint: EndpointHealthFacts; notice: number }) {
  const { soonestNotAfter, daysRemaining } = endpoint;
  if (soonestNotAfter !== null && daysRemaining !== null) {
    if (Date.parse(soonestNotAfter) <= Date.now()) return <Health level="expired">Expired</Health>;
    if (daysRemaining <= notice) return <Health level="critical">Expires within {notice} days</Health>;
  }
  if (!endpoint.enabled) return <span className="health muted">Scanning paused</span>;
  if (endpoint.errorSince) {
    return (
      <Health level="warning" title={endpoint.lastScanError ?? undefined}>
        Scan failing
      </Health>
    );
  }
  return <Health level="ok">OK</Health>;
}

function Health({ level, title, children }: { level: ExpiryLevel; title?: string; children: ReactNode }) {
  return (
    <span className={`health urgency urgency-${level}`} title={title}>
      <UrgencyIcon level={level} />
      <span>{children}</span>
    </span>
  );
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
  const type = endpointTypeOf(params.get('type'));
  const enabled = parseBool(params.get('enabled'));
  const hasError = parseBool(params.get('has_error'));
  const superseded = parseBool(params.get('superseded'));
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
  // On a phone the filters fold behind a button, so the first endpoints show without scrolling.
  const [filtersOpen, setFiltersOpen] = useState(false);
  const filtersOn = [
    q !== '',
    type !== undefined,
    enabled !== undefined,
    hasError !== undefined,
    tags.length > 0,
    expiresWithin !== '',
  ].filter(Boolean).length;
  const thresholds = useThresholds();
  const notice = Math.max(...thresholds);

  const filters = {
    q: q || undefined,
    type,
    enabled,
    has_error: hasError,
    superseded,
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
    update({ q: search.trim(), tag: splitList(tagInput), expires_within: withinInput.trim() });
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
          <CsvButton list="endpoints" fetchCsv={() => api.GET('/api/v1/endpoints', csvRequest(filters))} />
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

      <button
        type="button"
        className="filters-toggle"
        aria-expanded={filtersOpen}
        aria-controls="endpoint-filters"
        onClick={() => setFiltersOpen(!filtersOpen)}
      >
        Filters{filtersOn > 0 ? ` (${filtersOn} on)` : ''}
      </button>
      <form id="endpoint-filters" className={filtersOpen ? 'filters' : 'filters folded'} role="search" onSubmit={submitSearch}>
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
        <TagsFilter id="filter-tags" value={tagInput} onChange={setTagInput} />
        <DaysFilter id="filter-within" label="Expires within (days)" value={withinInput} onChange={setWithinInput} />
        <SelectFilter
          id="filter-type"
          label="Type"
          value={type}
          options={ENDPOINT_TYPE_OPTIONS}
          onChange={(value) => update({ type: value })}
        />
        <SelectFilter
          id="filter-enabled"
          label="Scanning"
          value={params.get('enabled') ?? ''}
          options={SCANNING_OPTIONS}
          onChange={(value) => update({ enabled: value })}
        />
        <SelectFilter
          id="filter-error"
          label="Scan state"
          value={params.get('has_error') ?? ''}
          options={SCAN_STATE_OPTIONS}
          onChange={(value) => update({ has_error: value })}
        />
        <SelectFilter
          id="filter-superseded"
          label="Renewal"
          value={params.get('superseded') ?? ''}
          options={RENEWAL_OPTIONS}
          onChange={(value) => update({ superseded: value })}
        />
        <SelectFilter
          id="filter-finding"
          label="Findings"
          value={finding ?? (hasFindings === undefined ? '' : String(hasFindings))}
          options={FINDING_OPTIONS}
          onChange={(value) => {
            const byCode = FINDING_CODES.find((code) => code === value);
            update({ finding: byCode ?? null, has_findings: byCode || value === '' ? null : value });
          }}
        />
        <button type="submit">Apply</button>
      </form>

      <LoadError message={error} />
      <p role="status" className="muted">
        {loading ? 'Loading…' : total === 0 ? 'No endpoint matches.' : rangeText('Endpoints', page, data?.items.length ?? 0, total)}
      </p>

      {data && data.items.length > 0 && (
        <div className="table-scroll">
          <table className="card-table">
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
                  {/* No label: on a phone the name is the card's title. */}
                  <td className="card-title">
                    <Link to={`/endpoints/${endpoint.id}`}>{endpoint.name}</Link>
                  </td>
                  <td data-label="Days remaining">
                    {endpoint.soonestNotAfter !== null && endpoint.daysRemaining !== null ? (
                      <DaysRemaining daysRemaining={endpoint.daysRemaining} notAfter={endpoint.soonestNotAfter} />
                    ) : (
                      <span className="muted">no certificate</span>
                    )}
                  </td>
                  <td data-label="Health">
                    <EndpointHealth endpoint={endpoint} notice={notice} />
                    {endpoint.renewalNotDeployed && (
                      <div className="urgency urgency-warning">
                        <span aria-hidden="true">⚠</span> Renewal not deployed
                      </div>
                    )}
                  </td>
                  <td data-label="Findings">
                    <FindingBadges findings={endpoint.findings} />
                  </td>
                  <td data-label="Type">{endpoint.type}</td>
                  <td data-label="Target">
                    <span className="mono">
                      {endpoint.type === 'host' ? `${endpoint.dnsName ?? ''}:${endpoint.port ?? ''}` : (endpoint.metadataUrl ?? '')}
                    </span>
                  </td>
                  <td data-label="Tags">{endpoint.tags.join(', ')}</td>
                  <td data-label="Last scanned">
                    <DateTime value={endpoint.lastScannedAt} />
                  </td>
                  <td data-label="Created">
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
