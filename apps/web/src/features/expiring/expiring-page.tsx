import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { api } from '../../api/client';
import { CsvButton } from '../../ui/csv-button';
import { DateTime, DaysRemaining } from '../../ui/expiry';
import { LoadError, useTitle } from '../../ui/layout';
import { PAGE_SIZE, Pager, rangeText, useListAddress } from '../../ui/paged-list';
import { useThresholds } from '../../ui/thresholds';
import { useApiQuery } from '../../ui/use-api-query';
import { RenewalNotDeployed } from '../../ui/renewal-not-deployed';
import './expiring.css';

type EndpointType = 'host' | 'saml' | 'manual';
const TYPES: EndpointType[] = ['host', 'saml', 'manual'];
type CertUse = 'tls' | 'signing' | 'encryption' | 'manual';
const USES: CertUse[] = ['tls', 'signing', 'encryption', 'manual'];
/** The route's own default window. */
const DEFAULT_DAYS = 30;

/**
 * "What expires next?": every current (endpoint, certificate) pair within a window of days,
 * expired first then soonest, through GET /api/v1/certificates/expiring (server-side paging, 50
 * rows a page, the total from X-Total-Count). The window defaults to the largest alert threshold,
 * the dashboard's panel; filters and page live in the address, so the dashboard links here.
 */
export function ExpiringPage() {
  useTitle('Expiring');
  const thresholds = useThresholds();
  const { params, page, offset, update } = useListAddress();
  const daysParam = params.get('days');
  // A value typed into the address goes to the API as it is, which answers a bad one with its own sentence.
  const days = daysParam ?? String(thresholds.length > 0 ? Math.max(...thresholds) : DEFAULT_DAYS);
  const typeParam = params.get('type');
  const type = TYPES.find((candidate) => candidate === typeParam);
  const useParam = params.get('certUse');
  const certUse = USES.find((candidate) => candidate === useParam);
  const tags = params.getAll('tag');
  const [daysInput, setDaysInput] = useState(days);
  const [tagInput, setTagInput] = useState(tags.join(', '));

  const filters = { days: Number(days), type, certUse, tag: tags.length > 0 ? tags : undefined };
  const { data, error, loading, response } = useApiQuery(`${days}?${params.toString()}`, () =>
    api.GET('/api/v1/certificates/expiring', { params: { query: { ...filters, limit: PAGE_SIZE, offset } } }),
  );
  const total = Number(response?.headers.get('X-Total-Count') ?? data?.length ?? 0);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const tagList = tagInput
      .split(',')
      .map((tag) => tag.trim())
      .filter((tag) => tag !== '');
    update({ days: daysInput.trim(), tag: tagList });
  };

  return (
    <>
      <div className="title-row">
        <h1>Expiring</h1>
        <div className="row-actions">
          {/* Every pair the filters match, not only this page (the CSV form ignores the paging). */}
          <CsvButton
            list="certificates-expiring"
            fetchCsv={() =>
              api.GET('/api/v1/certificates/expiring', {
                params: { query: { ...filters, format: 'csv' } },
                headers: { Accept: 'text/csv' },
                parseAs: 'blob',
              })
            }
          />
        </div>
      </div>
      <p className="muted">Every certificate in use on an endpoint, expired first, then the soonest to expire.</p>

      <form className="filters" onSubmit={submit} aria-label="Filters">
        <div className="field">
          <label htmlFor="expiring-days">Expiring within (days)</label>
          <input
            id="expiring-days"
            type="number"
            inputMode="numeric"
            min={0}
            max={3650}
            required
            value={daysInput}
            onChange={(e) => setDaysInput(e.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor="expiring-tags">Tags</label>
          <input id="expiring-tags" placeholder="env:prod, team:web" value={tagInput} onChange={(e) => setTagInput(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="expiring-type">Endpoint type</label>
          <select id="expiring-type" value={type ?? ''} onChange={(e) => update({ type: e.target.value })}>
            <option value="">Any</option>
            <option value="host">Host</option>
            <option value="saml">SAML</option>
            <option value="manual">Manual</option>
          </select>
        </div>
        <div className="field">
          <label htmlFor="expiring-use">Use</label>
          <select id="expiring-use" value={certUse ?? ''} onChange={(e) => update({ certUse: e.target.value })}>
            <option value="">Any</option>
            {USES.map((use) => (
              <option key={use} value={use}>
                {use}
              </option>
            ))}
          </select>
        </div>
        <button type="submit">Apply</button>
      </form>

      <LoadError message={error} />
      <p role="status" className="muted">
        {loading
          ? 'Loading…'
          : error
            ? ''
            : total === 0
              ? `No certificate expires within ${days} days.`
              : rangeText('Certificates', page, data?.length ?? 0, total)}
      </p>

      {data && data.length > 0 && (
        <div className="table-scroll">
          <table className="expiring-table">
            <thead>
              <tr>
                <th scope="col">Days remaining</th>
                <th scope="col">Endpoint</th>
                <th scope="col">Certificate</th>
                <th scope="col">Expires</th>
                <th scope="col">Issuer</th>
                <th scope="col">Use</th>
              </tr>
            </thead>
            <tbody>
              {data.map((row) => (
                <tr key={`${row.endpointId}-${row.certUse}-${row.fingerprint}`}>
                  <td data-label="Days remaining">
                    <DaysRemaining daysRemaining={row.daysRemaining} notAfter={row.notAfter} />
                  </td>
                  <td data-label="Endpoint">
                    <Link to={`/endpoints/${row.endpointId}`}>{row.endpointName}</Link>{' '}
                    <span className="muted small">{row.endpointType}</span>
                    {row.endpointTags.length > 0 && (
                      <>
                        <br />
                        <span className="muted small">{row.endpointTags.join(', ')}</span>
                      </>
                    )}
                  </td>
                  <td className="wrap" data-label="Certificate">
                    <Link to={`/certificates/${row.fingerprint}`}>{row.commonName ?? row.sans[0] ?? row.fingerprint.slice(0, 16)}</Link>
                    {row.supersededBy && <RenewalNotDeployed renewal={row.supersededBy} />}
                  </td>
                  <td className="nowrap" data-label="Expires">
                    <DateTime value={row.notAfter} />
                  </td>
                  <td data-label="Issuer">{row.issuerCommonName ?? <span className="muted">none</span>}</td>
                  <td data-label="Use">{row.certUse}</td>
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
