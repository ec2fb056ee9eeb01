import { useState, type ChangeEvent, type FormEvent } from 'react';
import { Link } from 'react-router';
import { api, type Schemas } from '../../api/client';
import { DateTime, DaysRemaining } from '../../ui/expiry';
import { LoadError } from '../../ui/layout';
import { RenewalNotDeployed } from '../../ui/renewal-not-deployed';
import { useAction } from '../../ui/use-action';
import { useApiQuery } from '../../ui/use-api-query';

type CurrentCertificate = Schemas['CurrentCertificateDto'];
type CertUse = CurrentCertificate['certUse'];

/** How many scans are read to find the certificates an endpoint presented before. */
const HISTORY_SCANS_READ = 500;
/** Certificates of the past looked up (one request each), newest first. */
const HISTORICAL_SHOWN = 20;

/** The subject of a certificate, linked to its own screen. */
function CertificateName({ fingerprint, commonName }: { fingerprint: string; commonName: string | null }) {
  return (
    <>
      <Link to={`/certificates/${fingerprint}`}>{commonName ?? 'no common name'}</Link>
      <div className="mono small" title={`SHA-256 fingerprint ${fingerprint}`}>
        {fingerprint.slice(0, 16)}…
      </div>
    </>
  );
}

/** The current links of GET /endpoints/{id}, each with its certificate summary. */
export function CurrentCertificates({ certificates }: { certificates: CurrentCertificate[] }) {
  return (
    <section aria-labelledby="current-heading">
      <h2 id="current-heading">Current certificates</h2>
      {certificates.length === 0 ? (
        <p className="muted">No current certificate.</p>
      ) : (
        <div className="table-scroll">
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
              {certificates.map((certificate) => (
                <tr key={`${certificate.certUse}-${certificate.fingerprint}`}>
                  <td>
                    <CertificateName fingerprint={certificate.fingerprint} commonName={certificate.commonName} />
                    {certificate.supersededBy && <RenewalNotDeployed renewal={certificate.supersededBy} />}
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
        </div>
      )}
    </section>
  );
}

interface HistoricalCertificate {
  certificate: Schemas['CertificateDetailDto'];
  link: Schemas['LinkedEndpointDto'];
}

/**
 * The certificates the endpoint presented before and no longer does. The API has no list of an
 * endpoint's historical links, so they are found through the fingerprints its scans recorded,
 * each looked up (GET /certificates/{fingerprint}) for its summary and its link to this endpoint.
 */
async function loadHistorical(endpointId: string, current: Set<string>): Promise<{ data: HistoricalCertificate[]; response: Response }> {
  const scans = await api.GET('/api/v1/endpoints/{id}/history', {
    params: { path: { id: endpointId }, query: { limit: HISTORY_SCANS_READ } },
  });
  if (!scans.data) return { data: [], response: scans.response };
  const fingerprints = [...new Set(scans.data.map((scan) => scan.fingerprint).filter((fp): fp is string => fp !== null))]
    .filter((fingerprint) => !current.has(fingerprint))
    .slice(0, HISTORICAL_SHOWN);
  const details = await Promise.all(
    fingerprints.map((fingerprint) => api.GET('/api/v1/certificates/{fingerprint}', { params: { path: { fingerprint } } })),
  );
  const rows = details.flatMap(({ data }) => {
    const link = data?.historicalEndpoints.find((candidate) => candidate.endpointId === endpointId);
    return data && link ? [{ certificate: data, link }] : [];
  });
  rows.sort((a, b) => b.link.lastSeenAt.localeCompare(a.link.lastSeenAt));
  return { data: rows, response: scans.response };
}

export function HistoricalCertificates({
  endpointId,
  current,
  refreshKey,
}: {
  endpointId: string;
  current: CurrentCertificate[];
  refreshKey: string;
}) {
  const currentFingerprints = new Set(current.map((certificate) => certificate.fingerprint));
  const historical = useApiQuery(`historical:${endpointId}:${refreshKey}:${[...currentFingerprints].join(',')}`, () =>
    loadHistorical(endpointId, currentFingerprints),
  );
  return (
    <section aria-labelledby="historical-heading">
      <h2 id="historical-heading">Historical certificates</h2>
      <LoadError message={historical.error} />
      {historical.loading && !historical.data && <p className="muted">Loading…</p>}
      {historical.data && historical.data.length === 0 && <p className="muted">No earlier certificate seen by the scans.</p>}
      {historical.data && historical.data.length > 0 && (
        <div className="table-scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Subject</th>
                <th scope="col">Issuer</th>
                <th scope="col">Use</th>
                <th scope="col">Expires</th>
                <th scope="col">First seen</th>
                <th scope="col">Last seen</th>
              </tr>
            </thead>
            <tbody>
              {historical.data.map(({ certificate, link }) => (
                <tr key={`${link.certUse}-${certificate.fingerprint}`}>
                  <td>
                    <CertificateName fingerprint={certificate.fingerprint} commonName={certificate.commonName} />
                  </td>
                  <td>{certificate.issuerCommonName ?? <span className="muted">unknown</span>}</td>
                  <td>{link.certUse}</td>
                  <td>
                    <DateTime value={certificate.notAfter} />
                  </td>
                  <td>
                    <DateTime value={link.firstSeenAt} />
                  </td>
                  <td>
                    <DateTime value={link.lastSeenAt} />
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

const LINK_OUTCOME: Record<Schemas['EndpointUploadResultDto']['link'], string> = {
  created: 'now current',
  reactivated: 'current again',
  unchanged: 'was already current',
};

/** What is sent: pasted or read PEM text, or the bytes of a DER file. */
type Upload = { kind: 'pem'; text: string } | { kind: 'der'; bytes: Uint8Array; fileName: string };

/**
 * POST /endpoints/{id}/certificate: a PEM pasted or read from a file (a DER file is sent as it is),
 * linked to the endpoint; the API's sentence when it refuses.
 */
export function CertificateUpload({ endpointId, onUploaded }: { endpointId: string; onUploaded: () => void }) {
  const [upload, setUpload] = useState<Upload>({ kind: 'pem', text: '' });
  const [certUse, setCertUse] = useState<CertUse>('manual');
  const [replace, setReplace] = useState(true);
  const [result, setResult] = useState<string | null>(null);
  const action = useAction();

  async function readFile(event: ChangeEvent<HTMLInputElement>) {
    const file = event.target.files?.[0];
    if (!file) return;
    const bytes = new Uint8Array(await file.arrayBuffer());
    const text = new TextDecoder().decode(bytes);
    setUpload(text.includes('-----BEGIN') ? { kind: 'pem', text } : { kind: 'der', bytes, fileName: file.name });
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    setResult(null);
    const params = { path: { id: endpointId }, query: { certUse, replace } };
    await action.run(
      () =>
        upload.kind === 'pem'
          ? api.POST('/api/v1/endpoints/{id}/certificate', { params, body: { pem: upload.text } })
          : // Raw DER goes as application/pkix-cert, which the route takes as it is.
            api.POST('/api/v1/endpoints/{id}/certificate', {
              params,
              body: { pem: '' },
              bodySerializer: () => upload.bytes,
              headers: { 'Content-Type': 'application/pkix-cert' },
            }),
      (data) => {
        const name = data.certificate.commonName ?? data.certificate.fingerprint;
        const retired = data.retired.length > 0 ? `; ${data.retired.length} earlier certificate(s) moved to history` : '';
        setResult(`Uploaded ${name}: ${LINK_OUTCOME[data.link]}${retired}.`);
        setUpload({ kind: 'pem', text: '' });
        onUploaded();
      },
    );
  }

  return (
    <section aria-labelledby="upload-heading">
      <h2 id="upload-heading">Upload a certificate</h2>
      <form className="card form" onSubmit={(event) => void submit(event)}>
        <label htmlFor="upload-file">Certificate file (PEM or DER)</label>
        <input id="upload-file" type="file" accept=".pem,.crt,.cer,.der,.p7b,.p7c,text/plain" onChange={(e) => void readFile(e)} />
        {upload.kind === 'der' && <p className="muted">{upload.fileName}: binary (DER), sent as it is.</p>}
        <label htmlFor="upload-pem">Or paste the PEM</label>
        <textarea
          id="upload-pem"
          className="mono"
          rows={8}
          placeholder="-----BEGIN CERTIFICATE-----"
          value={upload.kind === 'pem' ? upload.text : ''}
          onChange={(e) => setUpload({ kind: 'pem', text: e.target.value })}
        />
        <label htmlFor="upload-use">Use</label>
        <select id="upload-use" value={certUse} onChange={(e) => setCertUse(e.target.value as CertUse)}>
          <option value="manual">manual</option>
          <option value="tls">tls</option>
          <option value="signing">signing</option>
          <option value="encryption">encryption</option>
        </select>
        <label className="inline">
          <input type="checkbox" checked={replace} onChange={(e) => setReplace(e.target.checked)} />
          Replace the current certificates of this use (they move to history)
        </label>
        {action.error && (
          <p className="error" role="alert">
            {action.error}
          </p>
        )}
        <div className="actions">
          <button type="submit" className="primary" disabled={action.busy}>
            {action.busy ? 'Uploading…' : 'Upload certificate'}
          </button>
          <span role="status">{result}</span>
        </div>
      </form>
    </section>
  );
}
