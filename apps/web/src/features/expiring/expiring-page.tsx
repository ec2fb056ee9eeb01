import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { api } from '../../api/client';
import { splitList } from '../../ui/comma-list';
import { CsvButton } from '../../ui/csv-button';
import { csvRequest } from '../../ui/csv-download';
import { DateTime, DaysRemaining } from '../../ui/expiry';
import { DaysFilter, ENDPOINT_TYPE_OPTIONS, endpointTypeOf, SelectFilter, TagsFilter } from '../../ui/filter-fields';
import { LoadError, useTitle } from '../../ui/layout';
import { PAGE_SIZE, Pager, rangeText, useListAddress } from '../../ui/paged-list';
import { useThresholds } from '../../ui/thresholds';
import { useApiQuery } from '../../ui/use-api-query';
import { RenewalNotDeployed } from '../../ui/renewal-not-deployed';
import '../../ui/card-table.css';

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
  const type = endpointTypeOf(params.get('type'));
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
    update({ days: daysInput.trim(), tag: splitList(tagInput) });
  };

  return (
    <>
      <div className="title-row">
        <h1>Expiring</h1>
        <div className="row-actions">
          {/* Every pair the filters match, not only this page (the CSV form ignores the paging). */}
          <CsvButton list="certificates-expiring" fetchCsv={() => api.GET('/api/v1/certificates/expiring', csvRequest(filters))} />
        </div>
      </div>
      <p className="muted">Every certificate in use on an endpoint, expired first, then the soonest to expire.</p>

      <form className="filters" onSubmit={submit} aria-label="Filters">
        <DaysFilter id="expiring-days" label="Expiring within (days)" required value={daysInput} onChange={setDaysInput} />
        <TagsFilter id="expiring-tags" value={tagInput} onChange={setTagInput} />
        <SelectFilter
          id="expiring-type"
          label="Endpoint type"
          value={type}
          options={ENDPOINT_TYPE_OPTIONS}
          onChange={(value) => update({ type: value })}
        />
        <SelectFilter
          id="expiring-use"
          label="Use"
          value={certUse}
          options={USES.map((use) => [use, use] as const)}
          onChange={(value) => update({ certUse: value })}
        />
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
          <table className="card-table">
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
