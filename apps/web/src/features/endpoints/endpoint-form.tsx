import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { api, errorMessage, unreachable, type Schemas } from '../../api/client';
import * as check from '../../ui/field-checks';
import {
  checkedProblems,
  FieldError,
  fieldProps,
  firstOf,
  focusFirstProblem,
  GeneralProblem,
  noProblems,
  splitProblems,
  type Problems,
} from '../../ui/form-problems';
import { useApiQuery } from '../../ui/use-api-query';
import { findDuplicate } from './duplicate-endpoint';
import { splitList } from '../../ui/comma-list';

export type EndpointInput = Schemas['EndpointInputDto'];
type EndpointType = NonNullable<EndpointInput['type']>;
type StarttlsProtocol = NonNullable<EndpointInput['starttls']>;
const FIELDS = ['type', 'name', 'dnsName', 'port', 'ipAddress', 'starttls', 'metadataUrl', 'scannerId', 'tags', 'notes'] as const;
type Field = (typeof FIELDS)[number];
const ID = 'endpoint';

const TYPE_LABELS: Record<EndpointType, string> = {
  host: 'Host (TLS)',
  saml: 'SAML metadata',
  manual: 'Manual (uploaded certificates)',
};

/** The upgrades a host endpoint may ask for (docs/api-contract.md section 13). */
export const STARTTLS_NAMES: Record<StarttlsProtocol, string> = {
  smtp: 'SMTP',
  imap: 'IMAP',
  pop3: 'POP3',
  ftp: 'FTP',
  ldap: 'LDAP',
  postgres: 'PostgreSQL',
  xmpp: 'XMPP',
};

/** A hint in the choice: the port must still be set, and these are the usual ones. */
const STARTTLS_USUAL_PORTS: Record<StarttlsProtocol, string> = {
  smtp: '25 or 587',
  imap: '143',
  pop3: '110',
  ftp: '21',
  ldap: '389',
  postgres: '5432',
  xmpp: '5222',
};

/** What the form starts from: empty for a new endpoint, the stored one for an edit. */
export interface EndpointFormValues {
  type: EndpointType;
  name: string;
  dnsName: string;
  port: string;
  ipAddress: string;
  /** '' is implicit TLS. */
  starttls: StarttlsProtocol | '';
  metadataUrl: string;
  /** '' is the default scanner. */
  scannerId: string;
  enabled: boolean;
  scanExempt: boolean;
  tags: string;
  notes: string;
  /** Kept as they are: the form's PUT replaces every writable field, and these are set where the findings show. */
  ignoredFindings: EndpointInput['ignoredFindings'];
}

export const NEW_ENDPOINT: EndpointFormValues = {
  type: 'host',
  name: '',
  dnsName: '',
  port: '443',
  ipAddress: '',
  starttls: '',
  metadataUrl: '',
  scannerId: '',
  enabled: true,
  scanExempt: false,
  tags: '',
  notes: '',
  ignoredFindings: [],
};

export function valuesOf(endpoint: Schemas['EndpointResponseDto']): EndpointFormValues {
  return {
    type: endpoint.type,
    name: endpoint.name,
    dnsName: endpoint.dnsName ?? '',
    port: endpoint.port === null ? '443' : String(endpoint.port),
    ipAddress: endpoint.ipAddress ?? '',
    starttls: endpoint.starttls ?? '',
    metadataUrl: endpoint.metadataUrl ?? '',
    scannerId: endpoint.scannerId ?? '',
    enabled: endpoint.enabled,
    scanExempt: endpoint.scanExempt,
    tags: endpoint.tags.join(', '),
    notes: endpoint.notes,
    ignoredFindings: endpoint.ignoredFindings,
  };
}

/** What a person can fix before anything is sent: the fields of the chosen type only. */
export function endpointChecks(values: EndpointFormValues): Partial<Record<Field, string | null>> {
  const host = values.type === 'host';
  const saml = values.type === 'saml';
  return {
    name: firstOf(check.required(values.name, 'a name'), check.maxLength(values.name, 200, 'the name')),
    dnsName: host ? firstOf(check.required(values.dnsName, 'the host’s DNS name or IP address'), check.dnsName(values.dnsName)) : null,
    port: host ? check.port(values.port) : null,
    ipAddress: host ? check.ipAddress(values.ipAddress) : null,
    metadataUrl: saml ? firstOf(check.required(values.metadataUrl, 'the metadata URL'), check.httpUrl(values.metadataUrl)) : null,
    tags: check.tags(splitList(values.tags)),
  };
}

/** Why the API refused a body; for a duplicate, the endpoint that holds the same target. */
export interface Refusal {
  message: string;
  duplicateOf?: { id: string; name: string } | null;
}

/** The API's answer to a refused create or edit, with the duplicated endpoint looked up on a 409. */
export async function refusalOf(error: unknown, response: Response, body: EndpointInput, exceptId?: string): Promise<Refusal> {
  const message = errorMessage(error, response);
  if (response.status !== 409) return { message };
  return { message, duplicateOf: await findDuplicate(body, exceptId) };
}

/** The body of POST and PUT: every writable field, those of another type left out. */
function bodyOf(values: EndpointFormValues): EndpointInput {
  const port = Number(values.port);
  const scanned = values.type !== 'manual';
  return {
    type: values.type,
    name: values.name.trim(),
    enabled: values.enabled,
    scanExempt: values.scanExempt,
    notes: values.notes,
    tags: splitList(values.tags),
    ignoredFindings: values.ignoredFindings,
    // The generated type requires the defaulted port; the API ignores it for other types.
    port: 443,
    // A port that is not a number is sent as written, for the API to name the problem.
    ...(values.type === 'host'
      ? {
          dnsName: values.dnsName.trim() || undefined,
          port: values.port.trim() === '' ? 443 : Number.isFinite(port) ? port : (values.port as unknown as number),
          ipAddress: values.ipAddress.trim() === '' ? null : values.ipAddress.trim(),
          starttls: values.starttls === '' ? null : values.starttls,
        }
      : {}),
    ...(values.type === 'saml' ? { metadataUrl: values.metadataUrl.trim() || undefined } : {}),
    ...(scanned ? { scannerId: values.scannerId === '' ? null : values.scannerId } : {}),
  };
}

/**
 * The fields of an endpoint, for adding one and for editing one (whose type is fixed). `onSubmit`
 * sends the body and answers the API's sentence when it refuses, null when it took it.
 */
export function EndpointForm({
  initial,
  typeFixed,
  submitLabel,
  busyLabel,
  cancelTo,
  onSubmit,
}: {
  initial: EndpointFormValues;
  typeFixed: boolean;
  submitLabel: string;
  busyLabel: string;
  cancelTo: string;
  onSubmit: (body: EndpointInput) => Promise<Refusal | null>;
}) {
  const [values, setValues] = useState(initial);
  const [problems, setProblems] = useState<Problems<Field>>(noProblems());
  const [duplicateOf, setDuplicateOf] = useState<Refusal['duplicateOf']>(null);
  const [busy, setBusy] = useState(false);
  const set = <K extends keyof EndpointFormValues>(key: K, value: EndpointFormValues[K]) =>
    setValues((previous) => ({ ...previous, [key]: value }));
  const field = (name: Field) => fieldProps(ID, name, problems);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setDuplicateOf(null);
    const found = checkedProblems(endpointChecks(values));
    if (found) {
      setProblems(found);
      focusFirstProblem(ID, found, FIELDS);
      return;
    }
    setBusy(true);
    setProblems(noProblems());
    try {
      const refusal = await onSubmit(bodyOf(values));
      if (refusal) {
        setProblems(splitProblems(refusal.message, FIELDS));
        setDuplicateOf(refusal.duplicateOf ?? null);
      }
    } catch (caught) {
      setProblems({ byField: {}, general: unreachable(caught) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="card form" onSubmit={(event) => void submit(event)} noValidate>
      {typeFixed ? (
        <p>
          Type: <strong>{TYPE_LABELS[values.type]}</strong> <span className="muted">(cannot change)</span>
        </p>
      ) : (
        <fieldset>
          <legend>Type</legend>
          {(['host', 'saml', 'manual'] as const).map((option) => (
            <label key={option} className="inline">
              <input type="radio" name="type" value={option} checked={values.type === option} onChange={() => set('type', option)} />
              {TYPE_LABELS[option]}
            </label>
          ))}
        </fieldset>
      )}
      <FieldError idPrefix={ID} field="type" problems={problems} />

      <label htmlFor={`${ID}-name`}>Name</label>
      <input {...field('name')} required maxLength={200} value={values.name} onChange={(e) => set('name', e.target.value)} />
      <FieldError idPrefix={ID} field="name" problems={problems} />

      {values.type === 'host' && (
        <>
          <label htmlFor={`${ID}-dnsName`}>DNS name</label>
          <input {...field('dnsName')} required value={values.dnsName} onChange={(e) => set('dnsName', e.target.value)} />
          <FieldError idPrefix={ID} field="dnsName" problems={problems} />
          <label htmlFor={`${ID}-port`}>Port</label>
          <input {...field('port')} inputMode="numeric" value={values.port} onChange={(e) => set('port', e.target.value)} />
          <FieldError idPrefix={ID} field="port" problems={problems} />
          <label htmlFor={`${ID}-ipAddress`}>IP address (optional: scans connect here, SNI stays the DNS name)</label>
          <input {...field('ipAddress')} value={values.ipAddress} onChange={(e) => set('ipAddress', e.target.value)} />
          <FieldError idPrefix={ID} field="ipAddress" problems={problems} />
          <label htmlFor={`${ID}-starttls`}>STARTTLS</label>
          <select
            {...field('starttls')}
            value={values.starttls}
            onChange={(e) => set('starttls', e.target.value as EndpointFormValues['starttls'])}
          >
            <option value="">None (implicit TLS)</option>
            {(Object.keys(STARTTLS_NAMES) as StarttlsProtocol[]).map((protocol) => (
              <option key={protocol} value={protocol}>
                {STARTTLS_NAMES[protocol]} (usually port {STARTTLS_USUAL_PORTS[protocol]})
              </option>
            ))}
          </select>
          <FieldError idPrefix={ID} field="starttls" problems={problems} />
        </>
      )}

      {values.type === 'saml' && (
        <>
          <label htmlFor={`${ID}-metadataUrl`}>Metadata URL</label>
          <input
            {...field('metadataUrl')}
            type="url"
            required
            value={values.metadataUrl}
            onChange={(e) => set('metadataUrl', e.target.value)}
          />
          <FieldError idPrefix={ID} field="metadataUrl" problems={problems} />
        </>
      )}

      {values.type !== 'manual' && (
        <>
          <ScannerChoice value={values.scannerId} onChange={(id) => set('scannerId', id)} problems={problems} />
          <label className="inline">
            <input type="checkbox" checked={values.enabled} onChange={(e) => set('enabled', e.target.checked)} />
            Scanning enabled (a disabled endpoint still alerts and keeps its history)
          </label>
          <label className="inline">
            <input type="checkbox" checked={values.scanExempt} onChange={(e) => set('scanExempt', e.target.checked)} />
            Exempt from scanning (never scanned, whatever “enabled” says)
          </label>
        </>
      )}

      <label htmlFor={`${ID}-tags`}>Tags (comma-separated, such as env:prod)</label>
      <input {...field('tags')} value={values.tags} onChange={(e) => set('tags', e.target.value)} />
      <FieldError idPrefix={ID} field="tags" problems={problems} />

      <label htmlFor={`${ID}-notes`}>Notes</label>
      <textarea {...field('notes')} rows={3} value={values.notes} onChange={(e) => set('notes', e.target.value)} />
      <FieldError idPrefix={ID} field="notes" problems={problems} />

      {duplicateOf ? (
        // The API's 409 names its rule in field names; said here in words, with the endpoint to open.
        <p className="error" role="alert">
          {values.type === 'saml' ? 'This metadata URL' : 'This host, port and IP address'} on this scanner{' '}
          {values.type === 'saml' ? 'is' : 'are'} already watched by <Link to={`/endpoints/${duplicateOf.id}`}>{duplicateOf.name}</Link>.
          Nothing was saved.
        </p>
      ) : (
        <GeneralProblem problems={problems} />
      )}
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          {busy ? busyLabel : submitLabel}
        </button>
        <Link to={cancelTo}>Cancel</Link>
      </div>
    </form>
  );
}

/** GET /api/v1/scanners: which scanner probes the endpoint; none chosen is the default one. */
function ScannerChoice({ value, onChange, problems }: { value: string; onChange: (id: string) => void; problems: Problems<Field> }) {
  const scanners = useApiQuery('scanners', () => api.GET('/api/v1/scanners'));
  const defaultScanner = scanners.data?.find((scanner) => scanner.isDefault);
  return (
    <>
      <label htmlFor={`${ID}-scannerId`}>Scanner</label>
      <select {...fieldProps(ID, 'scannerId', problems)} value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">Default scanner{defaultScanner ? ` (now ${defaultScanner.name})` : ''}</option>
        {(scanners.data ?? []).map((scanner) => (
          <option key={scanner.id} value={scanner.id}>
            {scanner.name}
          </option>
        ))}
      </select>
      {scanners.error && <p className="error">{scanners.error}</p>}
      <FieldError idPrefix={ID} field="scannerId" problems={problems} />
    </>
  );
}
