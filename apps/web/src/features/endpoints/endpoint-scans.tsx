import { useState } from 'react';
import { Link } from 'react-router';
import { api, type Schemas } from '../../api/client';
import { CsvButton } from '../../ui/csv-button';
import { DateTime } from '../../ui/expiry';
import { LoadError } from '../../ui/layout';
import { useApiQuery } from '../../ui/use-api-query';

const HISTORY_PAGE = 20;

/** GET /endpoints/{id}/history: the newest scans, 20 more on request. */
export function ScanHistory({ endpointId, refreshKey }: { endpointId: string; refreshKey: string }) {
  const [limit, setLimit] = useState(HISTORY_PAGE);
  const history = useApiQuery(`history:${endpointId}:${refreshKey}:${limit}`, () =>
    api.GET('/api/v1/endpoints/{id}/history', { params: { path: { id: endpointId }, query: { limit } } }),
  );
  const total = Number(history.response?.headers.get('X-Total-Count') ?? history.data?.length ?? 0);
  return (
    <section aria-labelledby="history-heading">
      <div className="title-row">
        <h2 id="history-heading">Scan history</h2>
        <div className="row-actions">
          <CsvButton
            list="endpoint-history"
            fetchCsv={() =>
              api.GET('/api/v1/endpoints/{id}/history', {
                params: { path: { id: endpointId }, query: { format: 'csv' } },
                headers: { Accept: 'text/csv' },
                parseAs: 'blob',
              })
            }
          />
        </div>
      </div>
      <LoadError message={history.error} />
      {history.data && history.data.length === 0 && <p className="muted">Not scanned yet.</p>}
      {history.data && history.data.length > 0 && (
        <>
          <p className="muted">
            The latest {history.data.length} of {total} scans.
          </p>
          <div className="table-scroll" tabIndex={0} role="region" aria-labelledby="history-heading">
            <table>
              <thead>
                <tr>
                  <th scope="col">Scanned</th>
                  <th scope="col">Result</th>
                  <th scope="col">Address</th>
                  <th scope="col">TLS version</th>
                  <th scope="col">Certificate</th>
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
                    <td className="mono small">
                      {row.fingerprint && (
                        <Link to={`/certificates/${row.fingerprint}`} title={row.fingerprint}>
                          <span className="visually-hidden">Certificate </span>
                          {row.fingerprint.slice(0, 16)}…
                        </Link>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {history.data.length < total && (
            <button type="button" disabled={history.loading} onClick={() => setLimit(limit + HISTORY_PAGE)}>
              Show {Math.min(HISTORY_PAGE, total - history.data.length)} more scans
            </button>
          )}
        </>
      )}
    </section>
  );
}

type TlsVersion = Schemas['TlsVersionDto']['version'];
/** Versions RFC 8996 deprecates (and SSLv3, RFC 7568): offering them is worth a finding. */
const DEPRECATED: ReadonlySet<TlsVersion> = new Set<TlsVersion>(['SSLv3', 'TLSv1.0', 'TLSv1.1']);

/** The versions a profile found offered that should not be, as sentences. */
function findings(profile: Schemas['TlsProfileResponseDto']): string[] {
  const found = profile.versions
    .filter((version) => version.supported && DEPRECATED.has(version.version))
    .map((version) => `${version.version} is offered; it is deprecated (RFC 8996${version.version === 'SSLv3' ? ', RFC 7568' : ''}).`);
  if (!profile.versions.some((version) => version.supported && version.version === 'TLSv1.3')) found.push('TLSv1.3 is not offered.');
  return found;
}

/** GET /endpoints/{id}/tls-profile: the protocol versions and cipher suites the latest profile found. */
export function TlsProfile({ endpointId, refreshKey }: { endpointId: string; refreshKey: string }) {
  const profile = useApiQuery(`tls-profile:${endpointId}:${refreshKey}`, () =>
    api.GET('/api/v1/endpoints/{id}/tls-profile', { params: { path: { id: endpointId } } }),
  );
  // 404 is the API's way of saying "never profiled" for a host endpoint.
  const notProfiled = profile.response?.status === 404;
  const data = profile.data;
  return (
    <section aria-labelledby="tls-heading">
      <h2 id="tls-heading">TLS profile</h2>
      {notProfiled ? (
        <p className="muted">Not profiled yet: the profile comes with a successful scan.</p>
      ) : (
        <LoadError message={profile.error} />
      )}
      {data && (
        <>
          <dl className="facts">
            <div>
              <dt>Profiled</dt>
              <dd>
                <DateTime value={data.scannedAt} />
              </dd>
            </div>
            <div>
              <dt>Negotiated</dt>
              <dd className="mono">
                {data.negotiatedVersion ?? 'unknown'}
                {data.negotiatedCipherSuite ? `, ${data.negotiatedCipherSuite}` : ''}
              </dd>
            </div>
          </dl>
          <Findings lines={findings(data)} />
          <div className="table-scroll" tabIndex={0} role="region" aria-labelledby="tls-heading">
            <table>
              <thead>
                <tr>
                  <th scope="col">Version</th>
                  <th scope="col">Offered</th>
                  <th scope="col">Cipher suites</th>
                </tr>
              </thead>
              <tbody>
                {data.versions.map((version) => (
                  <tr key={version.version}>
                    <td>{version.version}</td>
                    <td>
                      {version.supported ? (
                        <span className={DEPRECATED.has(version.version) ? 'expiry-critical' : undefined}>yes</span>
                      ) : (
                        <span className="muted">no</span>
                      )}
                    </td>
                    <td>
                      {version.cipherSuites.length === 0 ? (
                        <span className="muted">none</span>
                      ) : (
                        <ul className="cipher-suites mono small">
                          {version.cipherSuites.map((suite) => (
                            <li key={suite}>{suite}</li>
                          ))}
                        </ul>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}

function Findings({ lines }: { lines: string[] }) {
  if (lines.length === 0) return <p>Findings: none (only current protocol versions offered).</p>;
  return (
    <>
      <h3>Findings</h3>
      <ul>
        {lines.map((line) => (
          <li key={line}>{line}</li>
        ))}
      </ul>
    </>
  );
}
