import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { api, type Schemas } from '../../api/client';
import { DateTime, DaysRemaining } from '../../ui/expiry';
import { FieldError, fieldProps, GeneralProblem } from '../../ui/form-problems';
import { LoadError } from '../../ui/layout';
import { RenewalNotDeployed } from '../../ui/renewal-not-deployed';
import { useAction } from '../../ui/use-action';
import { useApiQuery } from '../../ui/use-api-query';
import '../../ui/card-table.css';
import { NO_INPUT, UPLOAD_FIELDS, UPLOAD_LIMIT_MIB, useCertificateInput } from '../certificates/certificate-input';

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
          <table className="card-table">
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
                  <td className="card-title">
                    <CertificateName fingerprint={certificate.fingerprint} commonName={certificate.commonName} />
                    {certificate.supersededBy && <RenewalNotDeployed renewal={certificate.supersededBy} />}
                  </td>
                  <td data-label="Names (SANs)">{certificate.sans.join(', ')}</td>
                  <td data-label="Issuer">{certificate.issuerCommonName ?? <span className="muted">unknown</span>}</td>
                  <td data-label="Use">{certificate.certUse}</td>
                  <td data-label="Expires">
                    <DateTime value={certificate.notAfter} />
                  </td>
                  <td data-label="Days remaining">
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
          <table className="card-table">
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
                  <td className="card-title">
                    <CertificateName fingerprint={certificate.fingerprint} commonName={certificate.commonName} />
                  </td>
                  <td data-label="Issuer">{certificate.issuerCommonName ?? <span className="muted">unknown</span>}</td>
                  <td data-label="Use">{link.certUse}</td>
                  <td data-label="Expires">
                    <DateTime value={certificate.notAfter} />
                  </td>
                  <td data-label="First seen">
                    <DateTime value={link.firstSeenAt} />
                  </td>
                  <td data-label="Last seen">
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

const UPLOAD_ID = 'upload';
const ENDPOINT_UPLOAD_FIELDS = [...UPLOAD_FIELDS, 'certUse'] as const;
type EndpointUploadField = (typeof ENDPOINT_UPLOAD_FIELDS)[number];

/**
 * POST /endpoints/{id}/certificate: a PEM pasted or read from a file (a DER file is sent as it is),
 * linked to the endpoint. Nothing given, PEM holding no certificate or a file over the limit is
 * named by its field before anything is sent; the API's refusal goes by the field it concerns.
 */
export function CertificateUpload({ endpointId, onUploaded }: { endpointId: string; onUploaded: () => void }) {
  const [certUse, setCertUse] = useState<CertUse>('manual');
  const [replace, setReplace] = useState(true);
  const [result, setResult] = useState<string | null>(null);
  const action = useAction();
  const {
    input: upload,
    setInput: setUpload,
    problems,
    pick,
    checkBeforeSending,
  } = useCertificateInput(UPLOAD_ID, action, ENDPOINT_UPLOAD_FIELDS);
  const field = (name: EndpointUploadField) => fieldProps(UPLOAD_ID, name, problems);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setResult(null);
    const sendable = checkBeforeSending();
    if (!sendable) return;
    const params = { path: { id: endpointId }, query: { certUse, replace } };
    await action.run(
      () =>
        sendable.kind === 'pem'
          ? api.POST('/api/v1/endpoints/{id}/certificate', { params, body: { pem: sendable.text } })
          : // Raw DER goes as application/pkix-cert, which the route takes as it is.
            api.POST('/api/v1/endpoints/{id}/certificate', {
              params,
              body: { pem: '' },
              bodySerializer: () => sendable.bytes,
              headers: { 'Content-Type': 'application/pkix-cert' },
            }),
      (data) => {
        const name = data.certificate.commonName ?? data.certificate.fingerprint;
        const retired = data.retired.length > 0 ? `; ${data.retired.length} earlier certificate(s) moved to history` : '';
        setResult(`Uploaded ${name}: ${LINK_OUTCOME[data.link]}${retired}.`);
        setUpload(NO_INPUT);
        onUploaded();
      },
    );
  }

  return (
    <section aria-labelledby="upload-heading">
      <h2 id="upload-heading">Upload a certificate</h2>
      <form className="card form" aria-labelledby="upload-heading" onSubmit={(event) => void submit(event)} noValidate>
        <label htmlFor={`${UPLOAD_ID}-file`}>Certificate file (PEM or DER, at most {UPLOAD_LIMIT_MIB} MiB)</label>
        <input {...field('file')} type="file" accept=".pem,.crt,.cer,.der,.p7b,.p7c,text/plain" onChange={(e) => void pick(e)} />
        {upload.kind === 'der' && <p className="muted">{upload.fileName}: binary (DER), sent as it is.</p>}
        <FieldError idPrefix={UPLOAD_ID} field="file" problems={problems} />
        <label htmlFor={`${UPLOAD_ID}-pem`}>Or paste the PEM</label>
        <textarea
          {...field('pem')}
          className="mono"
          rows={8}
          placeholder="-----BEGIN CERTIFICATE-----"
          value={upload.kind === 'pem' ? upload.text : ''}
          onChange={(e) => setUpload({ kind: 'pem', text: e.target.value })}
        />
        <FieldError idPrefix={UPLOAD_ID} field="pem" problems={problems} />
        <label htmlFor={`${UPLOAD_ID}-certUse`}>Use</label>
        <select {...field('certUse')} value={certUse} onChange={(e) => setCertUse(e.target.value as CertUse)}>
          <option value="manual">manual</option>
          <option value="tls">tls</option>
          <option value="signing">signing</option>
          <option value="encryption">encryption</option>
        </select>
        <FieldError idPrefix={UPLOAD_ID} field="certUse" problems={problems} />
        <label className="inline">
          <input type="checkbox" checked={replace} onChange={(e) => setReplace(e.target.checked)} />
          Replace the current certificates of this use (they move to history)
        </label>
        <GeneralProblem problems={problems} />
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
