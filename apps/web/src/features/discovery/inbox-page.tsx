import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { api, type Schemas } from '../../api/client';
import { CsvButton } from '../../ui/csv-button';
import { csvRequest } from '../../ui/csv-download';
import { useAuth } from '../../auth/auth-context';
import { DateTime, DaysRemaining } from '../../ui/expiry';
import { LoadError, useTitle } from '../../ui/layout';
import { useAction } from '../../ui/use-action';
import { PAGE_SIZE, Pager, rangeText, useListAddress } from '../../ui/paged-list';
import { useApiQuery } from '../../ui/use-api-query';
import { PromoteForm } from './promote-form';
import { SelectFilter } from '../../ui/filter-fields';

type Entry = Schemas['InboxEntryResponseDto'];
type Endpoint = Schemas['EndpointResponseDto'];
type BulkResult = Schemas['InboxBulkResultDto'];
type Status = Entry['status'];
type BulkAction = Schemas['InboxBulkDto']['action'];

const STATUSES: Status[] = ['new', 'tracked', 'promoted', 'dismissed'];
/** What the inbox opens on: the services nobody has looked at yet. `all` lifts the filter. */
const DEFAULT_STATUS: Status = 'new';

const service = (entry: Entry) => `${entry.address}:${entry.port}`;
const mayPromote = (entry: Entry) => entry.status === 'new' || entry.status === 'dismissed';
const mayDismiss = (entry: Entry) => entry.status === 'new' || entry.status === 'tracked';

/**
 * GET /api/v1/discovery/inbox: what sweeps found, one page at a time with the filters in the
 * address; discovery:edit promotes entries to endpoints or dismisses them, one by one or selected.
 */
export function InboxPage() {
  useTitle('Discovery inbox');
  const { can } = useAuth();
  const mayEdit = can('discovery:edit');
  const { params, page, offset, update: updateAddress } = useListAddress();
  const statusParam = params.get('status');
  const status = statusParam === 'all' ? undefined : (STATUSES.find((candidate) => candidate === statusParam) ?? DEFAULT_STATUS);
  const networkId = params.get('networkId') ?? '';
  const q = params.get('q') ?? '';
  const [search, setSearch] = useState(q);
  const filters = { status, networkId: networkId || undefined, q: q || undefined };

  const inbox = useApiQuery(params.toString(), () =>
    api.GET('/api/v1/discovery/inbox', {
      params: { query: { ...filters, limit: PAGE_SIZE, offset } },
    }),
  );
  const networks = useApiQuery('networks', () => api.GET('/api/v1/discovery/networks'));
  const scanners = useApiQuery('scanners', () => api.GET('/api/v1/scanners'));

  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [promoting, setPromoting] = useState<Entry | null>(null);
  const [promoted, setPromoted] = useState<{ service: string; endpoint: Endpoint } | null>(null);
  const [dismissing, setDismissing] = useState<string | null>(null);
  const [bulkResult, setBulkResult] = useState<{ action: BulkAction; result: BulkResult; services: Map<string, string> } | null>(null);
  const dismiss = useAction();
  const bulk = useAction();

  const items = inbox.data?.items ?? [];

  // Another filter or page shows other entries: the selection of this one goes.
  const update = (changes: Record<string, string | null>) => {
    setSelected(new Set());
    updateAddress(changes);
  };

  const changed = () => {
    setSelected(new Set());
    inbox.reload();
  };

  async function dismissOne(entry: Entry) {
    setDismissing(entry.id);
    setPromoted(null);
    const done = await dismiss.run(() => api.POST('/api/v1/discovery/inbox/{id}/dismiss', { params: { path: { id: entry.id } } }));
    if (done) changed();
  }

  async function runBulk(action: BulkAction) {
    setBulkResult(null);
    setPromoted(null);
    // The refused entries are named as the page showed them, before the list reloads.
    const services = new Map(items.filter((entry) => selected.has(entry.id)).map((entry) => [entry.id, service(entry)]));
    await bulk.run(
      () => api.POST('/api/v1/discovery/inbox/bulk', { body: { action, ids: [...selected] } }),
      (result) => {
        setBulkResult({ action, result, services });
        changed();
      },
    );
  }

  const total = inbox.data?.totalCount ?? 0;
  const allSelected = items.length > 0 && items.every((entry) => selected.has(entry.id));
  const networkName = (id: string) => networks.data?.find((network) => network.id === id)?.name ?? id;

  const toggle = (id: string, on: boolean) =>
    setSelected((previous) => {
      const next = new Set(previous);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });

  const submitSearch = (event: FormEvent) => {
    event.preventDefault();
    update({ q: search.trim() });
  };

  return (
    <div className="discovery inbox">
      <div className="title-row">
        <h1>Inbox</h1>
        <div className="row-actions">
          <CsvButton list="discovery-inbox" fetchCsv={() => api.GET('/api/v1/discovery/inbox', csvRequest(filters))} />
        </div>
      </div>
      <p className="muted">
        The TLS services the sweeps found. Promote one to monitor it as a host endpoint; dismiss it to hide it until another certificate is
        seen there.
      </p>
      <form className="filters" role="search" aria-label="Filter the inbox" onSubmit={submitSearch}>
        <div className="field">
          <label htmlFor="inbox-q">Search</label>
          <input
            id="inbox-q"
            type="search"
            placeholder="Address, host name, common name or fingerprint"
            value={search}
            onChange={(event) => setSearch(event.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor="inbox-status">Status</label>
          <select
            id="inbox-status"
            value={status ?? 'all'}
            onChange={(event) => update({ status: event.target.value === DEFAULT_STATUS ? null : event.target.value })}
          >
            <option value="new">New</option>
            <option value="tracked">Tracked</option>
            <option value="promoted">Promoted</option>
            <option value="dismissed">Dismissed</option>
            <option value="all">Any</option>
          </select>
        </div>
        <SelectFilter
          id="inbox-network"
          label="Network"
          value={networkId}
          options={networks.data?.map((network) => [network.id, network.name] as const) ?? []}
          onChange={(value) => update({ networkId: value })}
        />
        <button type="submit">Apply</button>
      </form>

      <LoadError message={inbox.error} />
      <p role="status" className="muted">
        {inbox.loading ? 'Loading…' : total === 0 ? 'No entry matches.' : rangeText('Entries', page, items.length, total)}
      </p>

      <div role="status">
        {promoted && (
          <p>
            Promoted {promoted.service} to the endpoint <Link to={`/endpoints/${promoted.endpoint.id}`}>{promoted.endpoint.name}</Link>.
          </p>
        )}
        {bulkResult && <BulkOutcome {...bulkResult} />}
      </div>

      {mayEdit && items.length > 0 && (
        <div className="bulk-actions">
          <span>{selected.size} selected</span>
          <button type="button" disabled={selected.size === 0 || bulk.busy} onClick={() => void runBulk('promote')}>
            Promote selected
          </button>
          <button type="button" disabled={selected.size === 0 || bulk.busy} onClick={() => void runBulk('dismiss')}>
            Dismiss selected
          </button>
          <LoadError message={bulk.error} />
        </div>
      )}

      {items.length > 0 && (
        <div className="table-scroll">
          <table>
            <thead>
              <tr>
                {mayEdit && (
                  <th scope="col">
                    <input
                      type="checkbox"
                      aria-label="Select every entry on this page"
                      checked={allSelected}
                      onChange={(event) => setSelected(event.target.checked ? new Set(items.map((entry) => entry.id)) : new Set())}
                    />
                  </th>
                )}
                <th scope="col">Service</th>
                <th scope="col">Network</th>
                <th scope="col">Host names</th>
                <th scope="col">Certificate</th>
                <th scope="col">Expires in</th>
                <th scope="col">Status</th>
                <th scope="col">Last seen</th>
                {mayEdit && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {items.map((entry) => (
                <tr key={entry.id}>
                  {mayEdit && (
                    <td>
                      <input
                        type="checkbox"
                        aria-label={`Select ${service(entry)}`}
                        checked={selected.has(entry.id)}
                        onChange={(event) => toggle(entry.id, event.target.checked)}
                      />
                    </td>
                  )}
                  <td className="mono nowrap">{service(entry)}</td>
                  <td>{networkName(entry.networkId)}</td>
                  <td>
                    {entry.hostnames.length > 0 ? (
                      <ul>
                        {entry.hostnames.map((name) => (
                          <li key={name} className="mono">
                            {name}
                          </li>
                        ))}
                      </ul>
                    ) : (
                      <span className="muted">none</span>
                    )}
                  </td>
                  <td>
                    {entry.fingerprint ? (
                      <>
                        <Link to={`/certificates/${entry.fingerprint}`}>{entry.commonName ?? 'no common name'}</Link>
                        {entry.issuerCommonName && <div className="small muted">issued by {entry.issuerCommonName}</div>}
                      </>
                    ) : (
                      <span className="muted">chain not readable</span>
                    )}
                  </td>
                  <td>
                    {entry.notAfter !== null && entry.daysRemaining !== null ? (
                      <DaysRemaining daysRemaining={entry.daysRemaining} notAfter={entry.notAfter} />
                    ) : (
                      <span className="muted">unknown</span>
                    )}
                  </td>
                  <td>
                    {entry.status}
                    {entry.endpointId && (
                      <>
                        {' '}
                        (<Link to={`/endpoints/${entry.endpointId}`}>endpoint</Link>)
                      </>
                    )}
                  </td>
                  <td>
                    <DateTime value={entry.lastSeenAt} />
                  </td>
                  {mayEdit && (
                    <td>
                      <div className="row-actions">
                        {mayPromote(entry) && (
                          <button
                            type="button"
                            aria-label={`Promote ${service(entry)}`}
                            aria-expanded={promoting?.id === entry.id}
                            onClick={() => {
                              setPromoted(null);
                              setPromoting(promoting?.id === entry.id ? null : entry);
                            }}
                          >
                            Promote
                          </button>
                        )}
                        {mayDismiss(entry) && (
                          <button
                            type="button"
                            aria-label={`Dismiss ${service(entry)}`}
                            disabled={dismiss.busy}
                            onClick={() => void dismissOne(entry)}
                          >
                            Dismiss
                          </button>
                        )}
                      </div>
                      {dismissing === entry.id && <LoadError message={dismiss.error} />}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      {mayEdit && promoting && scanners.data && (
        <PromoteForm
          key={promoting.id}
          entry={promoting}
          scanners={scanners.data}
          onPromoted={(endpoint) => {
            setPromoted({ service: service(promoting), endpoint });
            setPromoting(null);
            changed();
          }}
          onCancel={() => setPromoting(null)}
        />
      )}

      <Pager page={page} total={total} onPage={(next) => update({ page: String(next) })} />
    </div>
  );
}

/** What a bulk action did: the count that succeeded and, per refused entry, the API's sentence. */
function BulkOutcome({ action, result, services }: { action: BulkAction; result: BulkResult; services: Map<string, string> }) {
  const done = action === 'promote' ? 'promoted' : 'dismissed';
  const failures = result.results.filter((item) => !item.ok);
  return (
    <div className="bulk-result">
      <p>
        {result.succeeded} {done}
        {result.failed > 0 ? `, ${result.failed} refused:` : '.'}
      </p>
      {failures.length > 0 && (
        <ul className="error">
          {failures.map((item) => (
            <li key={item.id}>
              {services.get(item.id) ?? item.id}: {item.error}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
