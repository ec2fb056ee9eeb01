import { useState, type FormEvent } from 'react';
import { Link, Navigate, useNavigate } from 'react-router';
import { api, errorMessage, type Schemas, unreachable } from '../../api/client';
import { useAuth } from '../../auth/auth-context';
import { useTitle } from '../../ui/layout';

type EndpointType = Schemas['EndpointInputDto']['type'];
const FIELDS = ['name', 'dnsName', 'port', 'ipAddress', 'metadataUrl', 'tags', 'notes'] as const;
type Field = (typeof FIELDS)[number];

/**
 * Splits the API's validation answer (one line per problem) between the fields the lines name;
 * the rest is shown with the form. The lines are shown as the API wrote them.
 */
export function splitProblems(message: string): { byField: Partial<Record<Field, string[]>>; general: string[] } {
  const byField: Partial<Record<Field, string[]>> = {};
  const general: string[] = [];
  for (const line of message.split('\n').map((text) => text.trim())) {
    if (line === '') continue;
    const field = FIELDS.find((name) => new RegExp(`^(an? |the )?${name}\\b`, 'i').test(line));
    if (field) (byField[field] ??= []).push(line);
    else general.push(line);
  }
  return { byField, general };
}

/** POST /api/v1/endpoints: a host, SAML or manual endpoint (endpoints:edit). */
export function EndpointCreatePage() {
  useTitle('Add endpoint');
  const { can } = useAuth();
  const navigate = useNavigate();
  const [type, setType] = useState<EndpointType>('host');
  const [name, setName] = useState('');
  const [dnsName, setDnsName] = useState('');
  const [port, setPort] = useState('443');
  const [ipAddress, setIpAddress] = useState('');
  const [metadataUrl, setMetadataUrl] = useState('');
  const [tags, setTags] = useState('');
  const [notes, setNotes] = useState('');
  const [problems, setProblems] = useState<ReturnType<typeof splitProblems>>({ byField: {}, general: [] });
  const [busy, setBusy] = useState(false);

  if (!can('endpoints:edit')) return <Navigate to="/endpoints" replace />;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setProblems({ byField: {}, general: [] });
    const portNumber = Number(port);
    const body: Schemas['EndpointInputDto'] = {
      type,
      name: name.trim(),
      enabled: true,
      scanExempt: false,
      notes,
      tags: tags
        .split(',')
        .map((tag) => tag.trim())
        .filter((tag) => tag !== ''),
      port: type === 'host' && port.trim() !== '' && Number.isInteger(portNumber) ? portNumber : 443,
      ...(type === 'host' ? { dnsName: dnsName.trim() || undefined, ipAddress: ipAddress.trim() === '' ? null : ipAddress.trim() } : {}),
      ...(type === 'saml' ? { metadataUrl: metadataUrl.trim() || undefined } : {}),
    };
    try {
      const { data, error, response } = await api.POST('/api/v1/endpoints', { body });
      if (data) {
        await navigate(`/endpoints/${data.id}`);
        return;
      }
      setProblems(splitProblems(errorMessage(error, response)));
    } catch (failure) {
      setProblems({ byField: {}, general: [unreachable(failure)] });
    } finally {
      setBusy(false);
    }
  };

  const fieldError = (field: Field) => {
    const lines = problems.byField[field];
    if (!lines) return null;
    return (
      <p className="error field-error" id={`${field}-error`}>
        {lines.join(' ')}
      </p>
    );
  };
  const describedBy = (field: Field) => (problems.byField[field] ? `${field}-error` : undefined);

  return (
    <>
      <p>
        <Link to="/endpoints">← Endpoints</Link>
      </p>
      <h1>Add endpoint</h1>
      <form className="card form" onSubmit={(event) => void submit(event)} noValidate>
        <fieldset>
          <legend>Type</legend>
          {(['host', 'saml', 'manual'] as const).map((option) => (
            <label key={option} className="inline">
              <input type="radio" name="type" value={option} checked={type === option} onChange={() => setType(option)} />
              {option === 'host' ? 'Host (TLS)' : option === 'saml' ? 'SAML metadata' : 'Manual (uploaded certificates)'}
            </label>
          ))}
        </fieldset>

        <label htmlFor="endpoint-name">Name</label>
        <input
          id="endpoint-name"
          required
          value={name}
          onChange={(e) => setName(e.target.value)}
          aria-describedby={describedBy('name')}
          aria-invalid={problems.byField.name ? true : undefined}
        />
        {fieldError('name')}

        {type === 'host' && (
          <>
            <label htmlFor="endpoint-dns">DNS name</label>
            <input
              id="endpoint-dns"
              required
              value={dnsName}
              onChange={(e) => setDnsName(e.target.value)}
              aria-describedby={describedBy('dnsName')}
              aria-invalid={problems.byField.dnsName ? true : undefined}
            />
            {fieldError('dnsName')}
            <label htmlFor="endpoint-port">Port</label>
            <input
              id="endpoint-port"
              inputMode="numeric"
              value={port}
              onChange={(e) => setPort(e.target.value)}
              aria-describedby={describedBy('port')}
              aria-invalid={problems.byField.port ? true : undefined}
            />
            {fieldError('port')}
            <label htmlFor="endpoint-ip">IP address (optional: scans connect here, SNI stays the DNS name)</label>
            <input
              id="endpoint-ip"
              value={ipAddress}
              onChange={(e) => setIpAddress(e.target.value)}
              aria-describedby={describedBy('ipAddress')}
              aria-invalid={problems.byField.ipAddress ? true : undefined}
            />
            {fieldError('ipAddress')}
          </>
        )}

        {type === 'saml' && (
          <>
            <label htmlFor="endpoint-metadata">Metadata URL</label>
            <input
              id="endpoint-metadata"
              type="url"
              required
              value={metadataUrl}
              onChange={(e) => setMetadataUrl(e.target.value)}
              aria-describedby={describedBy('metadataUrl')}
              aria-invalid={problems.byField.metadataUrl ? true : undefined}
            />
            {fieldError('metadataUrl')}
          </>
        )}

        <label htmlFor="endpoint-tags">Tags (comma-separated, such as env:prod)</label>
        <input id="endpoint-tags" value={tags} onChange={(e) => setTags(e.target.value)} aria-describedby={describedBy('tags')} />
        {fieldError('tags')}

        <label htmlFor="endpoint-notes">Notes</label>
        <textarea
          id="endpoint-notes"
          rows={3}
          value={notes}
          onChange={(e) => setNotes(e.target.value)}
          aria-describedby={describedBy('notes')}
        />
        {fieldError('notes')}

        {problems.general.length > 0 && (
          <div className="error" role="alert">
            {problems.general.map((line) => (
              <p key={line}>{line}</p>
            ))}
          </div>
        )}
        <div className="actions">
          <button type="submit" className="primary" disabled={busy}>
            {busy ? 'Adding…' : 'Add endpoint'}
          </button>
          <Link to="/endpoints">Cancel</Link>
        </div>
      </form>
    </>
  );
}
