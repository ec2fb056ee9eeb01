import { Link, useSearchParams } from 'react-router';
import { api, type Schemas } from '../../api/client';
import { useAuth } from '../../auth/auth-context';
import { DateTime, DaysRemaining } from '../../ui/expiry';
import { LoadError, useTitle } from '../../ui/layout';
import { useApiQuery } from '../../ui/use-api-query';
import { AlertingHealth } from './alerting-health';
import { Onboarding } from './onboarding';

/** GET /api/v1/dashboard: the caller's view (scoped by their tag subscriptions), counts and three panels. */
export function DashboardPage() {
  useTitle('Dashboard');
  const { me } = useAuth();
  const [params, setParams] = useSearchParams();
  const everything = params.get('scope') === 'all';
  const { data, error, loading } = useApiQuery(`dashboard:${String(everything)}`, () =>
    api.GET('/api/v1/dashboard', { params: { query: everything ? { scope: 'all' } : {} } }),
  );
  const subscriptions = me?.tagSubscriptions ?? [];
  return (
    <>
      <h1>Dashboard</h1>
      {data && <AlertingHealth alerting={data.alerting} />}
      <Onboarding />
      {subscriptions.length > 0 && (
        <p>
          <label className="inline">
            <input type="checkbox" checked={everything} onChange={(e) => setParams(e.target.checked ? { scope: 'all' } : {})} />
            Show every endpoint, not only my subscriptions ({subscriptions.join(', ')})
          </label>
        </p>
      )}
      <LoadError message={error} />
      {loading && !data && <p role="status">Loading…</p>}
      {data && (
        <>
          <section aria-labelledby="counts-heading">
            <h2 id="counts-heading" className="visually-hidden">
              Counts
            </h2>
            <dl className="counts">
              <div>
                <dt>Endpoints</dt>
                <dd>
                  <Link to="/endpoints">{data.counts.endpoints}</Link>
                  <span className="muted">
                    {' '}
                    ({data.counts.byType.host} host, {data.counts.byType.saml} SAML, {data.counts.byType.manual} manual)
                  </span>
                </dd>
              </div>
              <div>
                <dt>Scan errors</dt>
                <dd>
                  <Link to="/endpoints?has_error=true">{data.counts.withErrors}</Link>
                </dd>
              </div>
              <div>
                <dt>Stale scans</dt>
                <dd>{data.counts.stale}</dd>
              </div>
              <div>
                <dt>Active certificates</dt>
                <dd>{data.counts.activeCertificates}</dd>
              </div>
              <div>
                <dt>Expired</dt>
                <dd className={data.counts.expired > 0 ? 'expiry-expired' : undefined}>{data.counts.expired}</dd>
              </div>
              {data.counts.expiringWithin.map((bucket) => (
                <div key={bucket.days}>
                  <dt>Expiring within {bucket.days} days</dt>
                  <dd>{bucket.count}</dd>
                </div>
              ))}
              <div>
                {/* Certificates whose ACME CA's suggested renewal window has ended (docs/api-contract.md section 15). */}
                <dt>Renewal overdue</dt>
                <dd className={data.counts.renewalOverdue > 0 ? 'expiry-expired' : undefined}>{data.counts.renewalOverdue}</dd>
              </div>
            </dl>
          </section>

          <section aria-labelledby="expiring-heading">
            <h2 id="expiring-heading">Expiring certificates</h2>
            {data.expiringCertificates.length > 0 && (
              <ExpiringSummary shown={data.expiringCertificates.length} counts={data.counts} tags={everything ? [] : subscriptions} />
            )}
            {data.expiringCertificates.length === 0 ? (
              <p className="muted">No certificate expires within the alert thresholds.</p>
            ) : (
              <div className="table-scroll">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Endpoint</th>
                      <th scope="col">Certificate</th>
                      <th scope="col">Expires</th>
                      <th scope="col">Days remaining</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.expiringCertificates.map((row) => (
                      <tr key={`${row.endpointId}-${row.fingerprint}`}>
                        <td>
                          <Link to={`/endpoints/${row.endpointId}`}>{row.endpointName}</Link>
                        </td>
                        <td>{row.commonName ?? row.sans[0] ?? row.fingerprint.slice(0, 16)}</td>
                        <td>
                          <DateTime value={row.notAfter} />
                        </td>
                        <td>
                          <DaysRemaining daysRemaining={row.daysRemaining} notAfter={row.notAfter} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </section>

          <section aria-labelledby="errors-heading">
            <h2 id="errors-heading">Endpoints with scan errors</h2>
            {data.errorEndpoints.length === 0 ? (
              <p className="muted">No endpoint is failing its scans.</p>
            ) : (
              <div className="table-scroll">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Endpoint</th>
                      <th scope="col">Failing since</th>
                      <th scope="col">Error</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.errorEndpoints.map((row) => (
                      <tr key={row.id}>
                        <td>
                          <Link to={`/endpoints/${row.id}`}>{row.name}</Link>
                        </td>
                        <td>
                          <DateTime value={row.errorSince} />
                        </td>
                        <td>{row.lastScanError}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </section>

          <section aria-labelledby="stale-heading">
            <h2 id="stale-heading">Stale scans</h2>
            {data.staleScans.length === 0 ? (
              <p className="muted">Every scanned endpoint was scanned recently.</p>
            ) : (
              <div className="table-scroll">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Endpoint</th>
                      <th scope="col">Type</th>
                      <th scope="col">Last scanned</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.staleScans.map((row) => (
                      <tr key={row.id}>
                        <td>
                          <Link to={`/endpoints/${row.id}`}>{row.name}</Link>
                        </td>
                        <td>{row.type}</td>
                        <td>
                          <DateTime value={row.lastScannedAt} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </section>
        </>
      )}
    </>
  );
}

/**
 * "10 of 42" under the expiring panel and the way to all of them: the Expiring screen with the
 * panel's window (the largest threshold) and scope (the subscribed tags: any of them, as the
 * dashboard scopes). The panel's full size is expired plus those within the largest threshold
 * (docs/api-contract.md section 11).
 */
function ExpiringSummary({ shown, counts, tags }: { shown: number; counts: Schemas['DashboardCountsDto']; tags: string[] }) {
  const largest = counts.expiringWithin[0];
  const all = counts.expired + (largest?.count ?? 0);
  const address = new URLSearchParams(largest ? { days: String(largest.days) } : {});
  for (const tag of tags) address.append('tag', tag);
  return (
    <p>
      {shown} of {all}, expired first.{' '}
      <Link to={`/expiring?${address.toString()}`}>{largest ? `All ${all} expiring within ${largest.days} days` : `All ${all}`}</Link>
    </p>
  );
}
