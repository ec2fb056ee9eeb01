import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { api, type Schemas } from '../../api/client';
import { CsvButton } from '../../ui/csv-button';
import { csvRequest } from '../../ui/csv-download';
import { DateTime } from '../../ui/expiry';
import { LoadError, useTitle } from '../../ui/layout';
import { PAGE_SIZE, Pager, rangeText, useListAddress } from '../../ui/paged-list';
import { useApiQuery } from '../../ui/use-api-query';
import { RequirePermission } from './not-allowed';
import './admin.css';
import '../../ui/card-table.css';

type AuditEntry = Schemas['AuditEntryResponseDto'];

/** The actions the API writes, offered as suggestions; the filter takes any text. */
const KNOWN_ACTIONS = [
  'apikey:create',
  'apikey:delete',
  'certificate:delete',
  'certificate:upload',
  'discovery:dismiss',
  'endpoint:certificate_upload',
  'endpoint:create',
  'endpoint:delete',
  'endpoint:tags',
  'endpoint:update',
  'network:create',
  'network:delete',
  'network:sweep',
  'network:update',
  'root_stores:import',
  'scanner:create',
  'scanner:delete',
  'scanner:regenerate_token',
  'scanner:set_default',
  'scanner:update',
  'settings:alert_thresholds',
  'settings:mail',
  'settings:oidc',
  'template:reset',
  'template:update',
  'user:create',
  'user:delete',
  'user:update',
];

/** Audit log (audit:view): who changed what, newest first. */
export function AuditPage() {
  useTitle('Audit log');
  return (
    <RequirePermission permission="audit:view" title="Audit log">
      <AuditLog />
    </RequirePermission>
  );
}

/**
 * GET /audit one page at a time with its filters (action, target id); filters and page live in
 * the address so a filtered view can be bookmarked and Back returns to it.
 */
function AuditLog() {
  const { params, page, offset, update } = useListAddress();
  const action = params.get('action') ?? '';
  const targetId = params.get('targetId') ?? '';
  const [actionInput, setActionInput] = useState(action);
  const [targetInput, setTargetInput] = useState(targetId);
  const filters = { action: action || undefined, targetId: targetId || undefined };

  const { data, error, loading } = useApiQuery(`audit?${params.toString()}`, () =>
    api.GET('/api/v1/audit', {
      params: { query: { ...filters, limit: PAGE_SIZE, offset } },
    }),
  );

  const apply = (event: FormEvent) => {
    event.preventDefault();
    update({ action: actionInput.trim(), targetId: targetInput.trim() });
  };

  const showTarget = (id: string) => {
    setTargetInput(id);
    update({ targetId: id });
  };

  const total = data?.totalCount ?? 0;

  return (
    <>
      <div className="title-row">
        <h1>Audit log</h1>
        <div className="row-actions">
          <CsvButton list="audit" fetchCsv={() => api.GET('/api/v1/audit', csvRequest(filters))} />
        </div>
      </div>
      <form className="filters" role="search" aria-label="Audit filters" onSubmit={apply}>
        <div className="field">
          <label htmlFor="audit-action">Action</label>
          <input
            id="audit-action"
            list="audit-actions"
            placeholder="user:update"
            autoComplete="off"
            value={actionInput}
            onChange={(event) => setActionInput(event.target.value)}
          />
          <datalist id="audit-actions">
            {KNOWN_ACTIONS.map((known) => (
              <option key={known} value={known} />
            ))}
          </datalist>
        </div>
        <div className="field">
          <label htmlFor="audit-target">Target id</label>
          <input
            id="audit-target"
            className="mono"
            autoComplete="off"
            value={targetInput}
            onChange={(event) => setTargetInput(event.target.value)}
          />
        </div>
        <button type="submit">Apply</button>
        {(action !== '' || targetId !== '') && (
          <button
            type="button"
            onClick={() => {
              setActionInput('');
              setTargetInput('');
              update({ action: '', targetId: '' });
            }}
          >
            Clear filters
          </button>
        )}
      </form>

      <LoadError message={error} />
      <p role="status" className="muted">
        {loading ? 'Loading…' : total === 0 ? 'No entry matches.' : rangeText('Entries', page, data?.items.length ?? 0, total)}
      </p>

      {data && data.items.length > 0 && (
        <div className="table-scroll">
          <table className="card-table">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Actor</th>
                <th scope="col">Action</th>
                <th scope="col">Target</th>
                <th scope="col">Details</th>
                <th scope="col">Request</th>
              </tr>
            </thead>
            <tbody>
              {data.items.map((entry) => (
                <tr key={entry.id}>
                  <td className="nowrap card-title">
                    <DateTime value={entry.at} />
                  </td>
                  <td data-label="Actor">{entry.actor}</td>
                  <td className="mono" data-label="Action">
                    {entry.action}
                  </td>
                  <td className="audit-target" data-label="Target">
                    <Target entry={entry} onShowTarget={showTarget} />
                  </td>
                  <td data-label="Details">
                    <Details details={entry.details} />
                  </td>
                  <td className="mono small" data-label="Request">
                    {entry.requestId ?? <span className="muted">none</span>}
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

/** The target's type and id, a link to it where a screen shows it, and a filter to its history. */
function Target({ entry, onShowTarget }: { entry: AuditEntry; onShowTarget: (id: string) => void }) {
  const { targetType, targetId } = entry;
  if (!targetId) return <>{targetType}</>;
  const path = targetType === 'user' ? `/users/${targetId}` : targetType === 'endpoint' ? `/endpoints/${targetId}` : null;
  return (
    <>
      {targetType}{' '}
      {path ? (
        <Link className="mono small" to={path}>
          {targetId}
        </Link>
      ) : (
        <span className="mono small">{targetId}</span>
      )}{' '}
      <button type="button" className="small" aria-label={`History of ${targetType} ${targetId}`} onClick={() => onShowTarget(targetId)}>
        History
      </button>
    </>
  );
}

// The API leaves secrets out of the details; a key that still names one is masked all the same.
const SECRET_KEY = /secret|token$|hash|private|apikey$|^key$/i;

/** The details object as "key: value" lines; nested values as compact JSON. */
function Details({ details }: { details: Record<string, unknown> }) {
  const entries = Object.entries(details);
  if (entries.length === 0) return <span className="muted">none</span>;
  return (
    <dl className="audit-details">
      {entries.map(([key, value]) => (
        <div key={key} className="audit-detail">
          <dt>{key}</dt>
          <dd>{SECRET_KEY.test(key) ? '(hidden)' : readable(value)}</dd>
        </div>
      ))}
    </dl>
  );
}

function readable(value: unknown): string {
  if (value === null || value === undefined) return 'none';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  if (Array.isArray(value) && value.every((item) => typeof item !== 'object' || item === null))
    return value.length === 0 ? 'none' : value.map((item) => String(item)).join(', ');
  return JSON.stringify(value);
}
