import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, type Schemas } from '../../api/client';
import { useAuth } from '../../auth/auth-context';
import { DateTime, DaysRemaining } from '../../ui/expiry';
import { LoadError, useTitle } from '../../ui/layout';
import { ConfirmAction } from '../../ui/shown-once';
import { useAction } from '../../ui/use-action';
import { useApiQuery, type ApiResult } from '../../ui/use-api-query';
import { trustSummary } from './trust';
import { Fact } from '../../ui/facts';

type Certificate = Schemas['CertificateDetailDto'];
type LinkedEndpoint = Schemas['LinkedEndpointDto'];
/** Far more than any real chain; it stops a loop in a store holding a cross-signed cycle. */
const MAX_CHAIN_LENGTH = 10;

/** GET /api/v1/certificates/{fingerprint}: names, validity, key, chain, trust by store and the endpoints presenting it. */
export function CertificateDetailPage() {
  const { fingerprint = '' } = useParams();
  const certificate = useApiQuery(`certificate:${fingerprint}`, () =>
    api.GET('/api/v1/certificates/{fingerprint}', { params: { path: { fingerprint } } }),
  );
  const data = certificate.data;
  useTitle(data ? (data.commonName ?? data.fingerprint) : 'Certificate');

  return (
    <div className="certificate-detail">
      <p>
        <Link to="/certificates">← Certificates</Link>
      </p>
      <LoadError message={certificate.error} />
      {!data && certificate.loading && <p role="status">Loading…</p>}
      {data && (
        <>
          <h1>{data.commonName ?? (data.subject || data.fingerprint)}</h1>
          <Facts certificate={data} />
          <Chain certificate={data} />
          <TrustByStore certificate={data} />
          <Endpoints heading="Current on" id="current-endpoints" endpoints={data.currentEndpoints} none="No endpoint presents it now." />
          <Endpoints
            heading="Seen before on"
            id="historical-endpoints"
            endpoints={data.historicalEndpoints}
            none="No endpoint presented it before."
          />
          <details>
            <summary>PEM</summary>
            <pre className="mono pem">{data.pem}</pre>
          </details>
          <DeleteCertificate certificate={data} />
        </>
      )}
    </div>
  );
}

const list = (values: string[]) => (values.length > 0 ? values.join(', ') : <span className="muted">none</span>);

function keyDescription(certificate: Certificate): string {
  const size = certificate.keySize ? ` ${certificate.keySize} bits` : '';
  const curve = certificate.keyCurve ? ` (${certificate.keyCurve})` : '';
  return `${certificate.keyAlgorithm}${size}${curve}`;
}

/** The latest check-revocation verdict in one sentence an operator can act on (docs/api-contract.md section 18). */
function RevocationState({ revocation }: { revocation: Certificate['revocation'] }) {
  if (revocation === null)
    return <span className="muted">not checked yet (the hourly check covers certificates in use with a CRL or OCSP address)</span>;
  const by = revocation.source === 'crl' ? 'CRL' : 'OCSP';
  const checked = (
    <span className="muted">
      {' '}
      ({by}, checked <DateTime value={revocation.checkedAt} />)
    </span>
  );
  if (revocation.status === 'revoked')
    return (
      <>
        <span className="urgency urgency-critical">Revoked</span> on <DateTime value={revocation.revokedAt} />
        {revocation.reason ? ` (${revocation.reason})` : ''}: replace it with a newly issued certificate.{checked}
      </>
    );
  if (revocation.status === 'good') return <>Not revoked.{checked}</>;
  return (
    <>
      Unknown: {revocation.error}
      {checked}
    </>
  );
}

function Facts({ certificate }: { certificate: Certificate }) {
  return (
    <dl className="facts">
      <Fact term="Subject">
        <span className="mono">{certificate.subject || '(empty)'}</span>
      </Fact>
      <Fact term="Issuer">
        {certificate.issuerFingerprint && !certificate.selfSigned ? (
          <Link to={`/certificates/${certificate.issuerFingerprint}`} className="mono">
            {certificate.issuer}
          </Link>
        ) : (
          <span className="mono">{certificate.issuer}</span>
        )}
        {certificate.selfSigned && <span className="muted"> (self-signed)</span>}
      </Fact>
      <Fact term="Subject alternative names">{list(certificate.sans)}</Fact>
      <Fact term="Serial number">
        <span className="mono">{certificate.serialNumber}</span>
      </Fact>
      <Fact term="Valid from">
        <DateTime value={certificate.notBefore} />
      </Fact>
      <Fact term="Valid until">
        <DateTime value={certificate.notAfter} /> (
        <DaysRemaining daysRemaining={certificate.daysRemaining} notAfter={certificate.notAfter} />)
      </Fact>
      <Fact term="Revocation">
        <RevocationState revocation={certificate.revocation} />
      </Fact>
      {certificate.renewalInfo && <RenewalWindow info={certificate.renewalInfo} />}
      <Fact term="Key">{keyDescription(certificate)}</Fact>
      <Fact term="Signature algorithm">{certificate.signatureAlgorithm}</Fact>
      <Fact term="Certificate authority">
        {certificate.isCa ? `yes${certificate.pathLength !== null ? `, path length ${certificate.pathLength}` : ''}` : 'no'}
      </Fact>
      <Fact term="Key usage">{list(certificate.keyUsage)}</Fact>
      <Fact term="Extended key usage">{list(certificate.extendedKeyUsage)}</Fact>
      <Fact term="SHA-256 fingerprint">
        <span className="mono">{certificate.fingerprint}</span>
      </Fact>
      <Fact term="SHA-1 fingerprint">
        <span className="mono">{certificate.sha1Fingerprint}</span>
      </Fact>
      <Fact term="Subject key id">
        <span className="mono">{certificate.subjectKeyId ?? '—'}</span>
      </Fact>
      <Fact term="Authority key id">
        <span className="mono">{certificate.authorityKeyId ?? '—'}</span>
      </Fact>
      <Fact term="OCSP">{list(certificate.ocspUrls)}</Fact>
      <Fact term="CRL distribution points">{list(certificate.crlDistributionPoints)}</Fact>
      <Fact term="CA issuers">{list(certificate.caIssuersUrls)}</Fact>
    </dl>
  );
}

/**
 * The renewal window the certificate's ACME CA suggested (RFC 9773), said to be over once it has
 * ended: the CA may revoke the certificate after that (docs/api-contract.md section 15).
 */
function RenewalWindow({ info }: { info: NonNullable<Certificate['renewalInfo']> }) {
  const ended = new Date(info.windowEnd).getTime() <= Date.now();
  return (
    <Fact term="Suggested renewal">
      <DateTime value={info.windowStart} /> to <DateTime value={info.windowEnd} />
      {ended && <strong className="error"> (ended: renew now)</strong>}
      <span className="muted"> by {info.caName}</span>
      {info.explanationUrl && (
        <>
          {' '}
          <a href={info.explanationUrl} target="_blank" rel="noopener noreferrer">
            Why (from {info.caName})
          </a>
        </>
      )}
    </Fact>
  );
}

/** The issuers above this certificate, followed through issuerFingerprint as far as the store holds them. */
async function loadIssuers(certificate: Certificate): Promise<ApiResult<Certificate[]>> {
  const issuers: Certificate[] = [];
  let next = certificate.selfSigned ? null : certificate.issuerFingerprint;
  let response = new Response();
  const seen = new Set([certificate.fingerprint]);
  while (next && !seen.has(next) && issuers.length < MAX_CHAIN_LENGTH) {
    seen.add(next);
    const result = await api.GET('/api/v1/certificates/{fingerprint}', { params: { path: { fingerprint: next } } });
    if (!result.data) return { error: result.error, response: result.response };
    response = result.response;
    issuers.push(result.data);
    next = result.data.selfSigned ? null : result.data.issuerFingerprint;
  }
  return { data: issuers, response };
}

function Chain({ certificate }: { certificate: Certificate }) {
  const issuers = useApiQuery(`chain:${certificate.fingerprint}`, () => loadIssuers(certificate));
  const chain = [certificate, ...(issuers.data ?? [])];
  const top = chain[chain.length - 1];
  return (
    <section aria-labelledby="chain-heading">
      <h2 id="chain-heading">Chain</h2>
      <LoadError message={issuers.error} />
      {issuers.data && (
        <>
          <ol className="chain" aria-label="Certificate chain, this certificate first">
            {chain.map((link, position) => (
              <li key={link.fingerprint}>
                {position === 0 ? (
                  <strong>{link.commonName ?? link.subject}</strong>
                ) : (
                  <Link to={`/certificates/${link.fingerprint}`}>{link.commonName ?? link.subject}</Link>
                )}{' '}
                <span className="muted">
                  ({link.selfSigned ? 'self-signed' : link.isCa ? 'CA' : 'leaf'}, {trustSummary(link)})
                </span>
              </li>
            ))}
          </ol>
          {!top.selfSigned && !top.issuerFingerprint && (
            <p className="muted">
              The issuer of {top.commonName ?? top.subject} ({top.issuer}) is not stored; upload it to complete the chain.
            </p>
          )}
        </>
      )}
    </section>
  );
}

function TrustByStore({ certificate }: { certificate: Certificate }) {
  const stores = useApiQuery('root-stores', () => api.GET('/api/v1/root-stores'));
  return (
    <section aria-labelledby="trust-heading">
      <h2 id="trust-heading">Trust by store</h2>
      <p>
        {certificate.isTrustAnchor
          ? 'This certificate is a trust anchor: one of the roots imported from the stores.'
          : 'This certificate is not a trust anchor.'}
      </p>
      <LoadError message={stores.error} />
      {stores.data && (
        <div className="table-scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Root store</th>
                <th scope="col">Trusted</th>
                <th scope="col">Store updated</th>
              </tr>
            </thead>
            <tbody>
              {stores.data.map((store) => (
                <tr key={store.id}>
                  <td>{store.name}</td>
                  <td>
                    {certificate.trustedBy.includes(store.id) ? (
                      'trusted'
                    ) : (
                      <span className="muted">{store.anchorCount === 0 ? 'not trusted (store empty)' : 'not trusted'}</span>
                    )}
                  </td>
                  <td>
                    <DateTime value={store.updatedAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function Endpoints({ heading, id, endpoints, none }: { heading: string; id: string; endpoints: LinkedEndpoint[]; none: string }) {
  return (
    <section aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>{heading}</h2>
      {endpoints.length === 0 ? (
        <p className="muted">{none}</p>
      ) : (
        <div className="table-scroll">
          <table aria-labelledby={`${id}-heading`}>
            <thead>
              <tr>
                <th scope="col">Endpoint</th>
                <th scope="col">Type</th>
                <th scope="col">Use</th>
                <th scope="col">First seen</th>
                <th scope="col">Last seen</th>
              </tr>
            </thead>
            <tbody>
              {endpoints.map((endpoint) => (
                <tr key={`${endpoint.endpointId}:${endpoint.certUse}`}>
                  <td>
                    <Link to={`/endpoints/${endpoint.endpointId}`}>{endpoint.endpointName}</Link>
                  </td>
                  <td>{endpoint.endpointType}</td>
                  <td>{endpoint.certUse}</td>
                  <td>
                    <DateTime value={endpoint.firstSeenAt} />
                  </td>
                  <td>
                    <DateTime value={endpoint.lastSeenAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** DELETE (certs:edit) after confirming; the API refuses (409) while any endpoint link references it. */
function DeleteCertificate({ certificate }: { certificate: Certificate }) {
  const { can } = useAuth();
  const navigate = useNavigate();
  const [confirming, setConfirming] = useState(false);
  const remove = useAction();
  if (!can('certs:edit')) return null;
  const name = certificate.commonName ?? certificate.fingerprint;
  return (
    <section aria-labelledby="delete-heading">
      <h2 id="delete-heading">Delete</h2>
      <div className="actions">
        <ConfirmAction
          label="Delete certificate"
          question="Delete this certificate from the store?"
          confirmLabel={`Yes, delete ${name}`}
          confirming={confirming}
          busy={remove.busy}
          onAsk={() => {
            remove.clearError();
            setConfirming(true);
          }}
          onCancel={() => setConfirming(false)}
          onConfirm={() =>
            void remove
              .run(() => api.DELETE('/api/v1/certificates/{fingerprint}', { params: { path: { fingerprint: certificate.fingerprint } } }))
              .then((deleted) => {
                setConfirming(false);
                if (deleted) void navigate('/certificates', { state: { deleted: name } });
              })
          }
        />
      </div>
      <LoadError message={remove.error} />
    </section>
  );
}
