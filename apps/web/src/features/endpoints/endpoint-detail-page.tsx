import { useEffect } from 'react';
import { Link, useParams } from 'react-router';
import { api } from '../../api/client';
import { DateTime, DaysRemaining } from '../../ui/expiry';
import { LoadError, useTitle } from '../../ui/layout';
import { useApiQuery } from '../../ui/use-api-query';

const HISTORY_ROWS = 20;
/** While a scanned endpoint waits for its first scan, the screen looks again this often. */
const FIRST_SCAN_POLL_MS = 3000;

/** GET /api/v1/endpoints/{id}: the endpoint, its current certificates and its latest scans. */
export function EndpointDetailPage() {
  const { id = '' } = useParams();
  const endpoint = useApiQuery(`endpoint:${id}`, () => api.GET('/api/v1/endpoints/{id}', { params: { path: { id } } }));
  const scanned = endpoint.data !== undefined && endpoint.data.type !== 'manual';
  const history = useApiQuery(`history:${id}:${endpoint.data?.lastScannedAt ?? ''}:${String(scanned)}`, () =>
    scanned
      ? api.GET('/api/v1/endpoints/{id}/history', { params: { path: { id }, query: { limit: HISTORY_ROWS } } })
      : Promise.resolve({ data: [], response: new Response() }),
  );
  useTitle(endpoint.data?.name ?? 'Endpoint');

  const waitingForFirstScan =
    endpoint.data !== undefined && scanned && endpoint.data.enabled && !endpoint.data.scanExempt && endpoint.data.lastScannedAt === null;
  const { reload } = endpoint;
  useEffect(() => {
    if (!waitingForFirstScan) return;
    const timer = window.setInterval(reload, FIRST_SCAN_POLL_MS);
    return () => window.clearInterval(timer);
  }, [waitingForFirstScan, reload]);

  const data = endpoint.data;
  return (
    <>
      <p>
        <Link to="/endpoints">← Endpoints</Link>
      </p>
      <LoadError message={endpoint.error} />
      {!data && endpoint.loading && <p role="status">Loading…</p>}
      {data && (
        <>
          <h1>{data.name}</h1>
          <dl className="facts">
            <div>
              <dt>Type</dt>
              <dd>{data.type}</dd>
            </div>
            {data.type === 'host' && (
              <div>
                <dt>Target</dt>
                <dd className="mono">
                  {data.dnsName}:{data.port}
                  {data.ipAddress ? ` (connects to ${data.ipAddress})` : ''}
                </dd>
              </div>
            )}
            {data.type === 'saml' && (
              <div>
                <dt>Metadata URL</dt>
                <dd className="mono">{data.metadataUrl}</dd>
              </div>
            )}
            <div>
              <dt>Scanning</dt>
              <dd>
                {data.type === 'manual' ? 'not scanned (manual)' : data.scanExempt ? 'exempt' : data.enabled ? 'enabled' : 'disabled'}
              </dd>
            </div>
            {data.type !== 'manual' && (
              <div>
                <dt>Last scanned</dt>
                <dd>
                  <DateTime value={data.lastScannedAt} />
                  {waitingForFirstScan && <span className="muted"> (waiting for the first scan)</span>}
                </dd>
              </div>
            )}
            {data.errorSince && (
              <div>
                <dt>Failing since</dt>
                <dd>
                  <DateTime value={data.errorSince} />: <span className="expiry-expired">{data.lastScanError}</span>
                </dd>
              </div>
            )}
            {data.type === 'host' && data.chainComplete !== null && (
              <div>
                <dt>Chain presented</dt>
                <dd>{data.chainComplete ? 'complete' : 'incomplete (the server omits an intermediate or sends it out of order)'}</dd>
              </div>
            )}
            <div>
              <dt>Tags</dt>
              <dd>{data.tags.length > 0 ? data.tags.join(', ') : <span className="muted">none</span>}</dd>
            </div>
            {data.notes && (
              <div>
                <dt>Notes</dt>
                <dd className="pre">{data.notes}</dd>
              </div>
            )}
          </dl>

          <section aria-labelledby="current-heading">
            <h2 id="current-heading">Current certificates</h2>
            {data.currentCertificates.length === 0 ? (
              <p className="muted">No current certificate.</p>
            ) : (
              <table>
                <thead>
                  <tr>
                    <th scope="col">Subject</th>
                    <th scope="col">Names (SANs)</th>
                    <th scope="col">Issuer</th>
                    <th scope="col">Use</th>
                    <th scope="col">Expires</th>
                    <th scope="col">Days remaining</th>
                  </tr>
                </thead>
                <tbody>
                  {data.currentCertificates.map((certificate) => (
                    <tr key={`${certificate.certUse}-${certificate.fingerprint}`}>
                      <td>
                        {certificate.commonName ?? <span className="muted">no common name</span>}
                        <div className="mono small" title="SHA-256 fingerprint">
                          {certificate.fingerprint.slice(0, 16)}…
                        </div>
                      </td>
                      <td>{certificate.sans.join(', ')}</td>
                      <td>{certificate.issuerCommonName ?? <span className="muted">unknown</span>}</td>
                      <td>{certificate.certUse}</td>
                      <td>
                        <DateTime value={certificate.notAfter} />
                      </td>
                      <td>
                        <DaysRemaining daysRemaining={certificate.daysRemaining} notAfter={certificate.notAfter} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </section>

          {scanned && (
            <section aria-labelledby="history-heading">
              <h2 id="history-heading">Scan history</h2>
              <LoadError message={history.error} />
              {history.data && history.data.length === 0 && <p className="muted">Not scanned yet.</p>}
              {history.data && history.data.length > 0 && (
                <>
                  <p className="muted">
                    The latest {history.data.length} of {history.response?.headers.get('X-Total-Count') ?? history.data.length} scans.
                  </p>
                  <table>
                    <thead>
                      <tr>
                        <th scope="col">Scanned</th>
                        <th scope="col">Result</th>
                        <th scope="col">Address</th>
                        <th scope="col">TLS version</th>
                      </tr>
                    </thead>
                    <tbody>
                      {history.data.map((row) => (
                        <tr key={row.id}>
                          <td>
                            <DateTime value={row.scannedAt} />
                          </td>
                          <td>{row.success ? 'ok' : <span className="expiry-expired">{row.error ?? 'failed'}</span>}</td>
                          <td className="mono">{row.resolvedIp ?? ''}</td>
                          <td>{row.tlsVersion ?? ''}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </>
              )}
            </section>
          )}
        </>
      )}
    </>
  );
}
