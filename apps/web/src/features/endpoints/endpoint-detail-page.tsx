import { useEffect, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, type Schemas } from '../../api/client';
import { useAuth } from '../../auth/auth-context';
import { DateTime } from '../../ui/expiry';
import { LoadError, useTitle } from '../../ui/layout';
import { ConfirmAction } from '../../ui/shown-once';
import { useAction } from '../../ui/use-action';
import { useApiQuery } from '../../ui/use-api-query';
import { CertificateUpload, CurrentCertificates, HistoricalCertificates } from './endpoint-certificates';
import { RotationTimeline } from './endpoint-rotations';
import { ScanHistory, TlsProfile } from './endpoint-scans';
import { STARTTLS_NAMES } from './endpoint-form';
import { EndpointFindings } from './endpoint-findings';
import { EndpointTags } from './endpoint-tags';
import { SamlMetadata } from './saml-metadata';
import { ScannerStatus } from '../scanners/scanner-status';
import './endpoints.css';

/** While a scanned endpoint waits for its first scan or a requested one, the screen looks again this often. */
const SCAN_POLL_MS = 3000;

/**
 * GET /api/v1/endpoints/{id}: the endpoint, its current and earlier certificates, tags, SAML
 * metadata, TLS profile and scans; with endpoints:edit also edit, delete, tag and upload.
 */
export function EndpointDetailPage() {
  const { id = '' } = useParams();
  const { can } = useAuth();
  const mayEdit = can('endpoints:edit');
  const endpoint = useApiQuery(`endpoint:${id}`, () => api.GET('/api/v1/endpoints/{id}', { params: { path: { id } } }));
  const scanned = endpoint.data !== undefined && endpoint.data.type !== 'manual';
  // What is derived from scans is read again when a new scan lands.
  const refreshKey = endpoint.data?.lastScannedAt ?? '';
  useTitle(endpoint.data?.name ?? 'Endpoint');

  const scannable = endpoint.data !== undefined && scanned && endpoint.data.enabled && !endpoint.data.scanExempt;
  // After "Scan now": the last scan time when it was asked for; the screen looks again until it changes.
  const [scanAskedAfter, setScanAskedAfter] = useState<string | null | undefined>(undefined);
  const waitingForScan =
    scannable &&
    (endpoint.data?.lastScannedAt === null || (scanAskedAfter !== undefined && endpoint.data?.lastScannedAt === scanAskedAfter));
  const { reload } = endpoint;
  useEffect(() => {
    if (!waitingForScan) return;
    const timer = window.setInterval(reload, SCAN_POLL_MS);
    return () => window.clearInterval(timer);
  }, [waitingForScan, reload]);

  const data = endpoint.data;
  // The scanner that will run a requested scan: when its agent is offline the scan waits for it.
  // Read again when a scan lands (its agent called in) and when a scan is asked for.
  const scanners = useApiQuery(`scanners:${refreshKey}`, () => api.GET('/api/v1/scanners'));
  const scanner = data && findScanner(scanners.data, data.scannerId);
  return (
    <>
      <p>
        <Link to="/endpoints">← Endpoints</Link>
      </p>
      <LoadError message={endpoint.error} />
      {!data && endpoint.loading && <p role="status">Loading…</p>}
      {data && (
        <>
          <div className="title-row">
            <h1>{data.name}</h1>
            {mayEdit && (
              <EndpointActions
                id={data.id}
                name={data.name}
                scannable={scannable}
                waitingForScan={waitingForScan && scanAskedAfter !== undefined}
                offlineScanner={scanner && !scanner.online ? scanner.name : null}
                onScanRequested={() => {
                  setScanAskedAfter(data.lastScannedAt);
                  scanners.reload();
                }}
              />
            )}
          </div>
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
            {data.type === 'host' && (
              <div>
                <dt>STARTTLS</dt>
                <dd>{data.starttls ? STARTTLS_NAMES[data.starttls] : 'none (implicit TLS)'}</dd>
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
                <dt>Scanner</dt>
                <dd>
                  <ScannerName id={data.scannerId} scanner={scanner} />
                </dd>
              </div>
            )}
            {data.type !== 'manual' && (
              <div>
                <dt>Last scanned</dt>
                <dd>
                  <DateTime value={data.lastScannedAt} />
                  {scannable && data.lastScannedAt === null && <span className="muted"> (waiting for the first scan)</span>}
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
            {data.notes && (
              <div>
                <dt>Notes</dt>
                <dd className="pre">{data.notes}</dd>
              </div>
            )}
          </dl>

          <EndpointFindings findings={data.findings} ignored={data.ignoredFindings} />
          <CurrentCertificates certificates={data.currentCertificates} />
          {data.type === 'manual' && mayEdit && <CertificateUpload endpointId={data.id} onUploaded={reload} />}
          {scanned && can('certs:view') && (
            <HistoricalCertificates endpointId={data.id} current={data.currentCertificates} refreshKey={refreshKey} />
          )}
          <RotationTimeline endpointId={data.id} refreshKey={refreshKey} />
          <EndpointTags endpointId={data.id} tags={data.tags} onSaved={reload} />
          {data.type === 'saml' && <SamlMetadata metadata={data.samlMetadata} />}
          {data.type === 'host' && <TlsProfile endpointId={data.id} refreshKey={refreshKey} />}
          {scanned && <ScanHistory endpointId={data.id} refreshKey={refreshKey} />}
        </>
      )}
    </>
  );
}

type Scanner = Schemas['ScannerResponseDto'];

/** The scanner an endpoint is assigned to; none is the default scanner. */
function findScanner(scanners: Scanner[] | undefined, id: string | null): Scanner | undefined {
  return scanners?.find((candidate) => (id === null ? candidate.isDefault : candidate.id === id));
}

/** The endpoint's scanner by name (the id when GET /scanners did not answer), and whether it is online. */
function ScannerName({ id, scanner }: { id: string | null; scanner: Scanner | undefined }) {
  const status = scanner && (
    <>
      {' '}
      <ScannerStatus online={scanner.online} lastUsedAt={scanner.lastUsedAt} />
    </>
  );
  if (id === null)
    return (
      <>
        <span>the default scanner{scanner ? ` (${scanner.name})` : ''}</span>
        {status}
      </>
    );
  return (
    <>
      {scanner ? <span>{scanner.name}</span> : <span className="mono">{id}</span>}
      {status}
    </>
  );
}

/**
 * Scan now (host and SAML endpoints that are scanned: an online scanner picks it up within
 * seconds; an offline one's scan waits until its agent calls in, and the screen says so), Edit (its own screen) and Delete (after confirming, then back to the list).
 */
function EndpointActions({
  id,
  name,
  scannable,
  waitingForScan,
  offlineScanner,
  onScanRequested,
}: {
  id: string;
  name: string;
  scannable: boolean;
  waitingForScan: boolean;
  /** The name of the endpoint's scanner when its agent is offline, else null. */
  offlineScanner: string | null;
  onScanRequested: () => void;
}) {
  const navigate = useNavigate();
  const [confirming, setConfirming] = useState(false);
  const deletion = useAction();
  const scan = useAction();
  return (
    <div className="row-actions">
      {scannable && (
        <button
          type="button"
          disabled={scan.busy || waitingForScan}
          onClick={() => void scan.run(() => api.POST('/api/v1/endpoints/{id}/scan', { params: { path: { id } } }), onScanRequested)}
        >
          Scan now
        </button>
      )}
      <Link className="button" to={`/endpoints/${id}/edit`}>
        Edit
      </Link>
      <ConfirmAction
        label="Delete"
        accessibleLabel={`Delete ${name}`}
        question="Delete this endpoint? Its links and scan history go with it; the certificates stay."
        confirmLabel={`Yes, delete ${name}`}
        confirming={confirming}
        busy={deletion.busy}
        onAsk={() => {
          setConfirming(true);
          deletion.clearError();
        }}
        onCancel={() => setConfirming(false)}
        onConfirm={() =>
          void deletion.run(
            () => api.DELETE('/api/v1/endpoints/{id}', { params: { path: { id } } }),
            () => void navigate('/endpoints'),
          )
        }
      />
      <span role="status">
        {!waitingForScan
          ? ''
          : offlineScanner === null
            ? 'Scan requested: its scanner picks it up within seconds.'
            : `Scan requested, but the scanner ${offlineScanner} is offline: the scan waits until its agent calls in.`}
      </span>
      <LoadError message={deletion.error ?? scan.error} />
    </div>
  );
}
