import { useState, type FormEvent } from 'react';
import { api, type Schemas } from '../../api/client';
import { FieldError, fieldProps, GeneralProblem, noProblems, splitProblems } from '../../ui/form-problems';
import { useAction } from '../../ui/use-action';
import { splitList } from '../../ui/comma-list';

type Entry = Schemas['InboxEntryResponseDto'];
type Endpoint = Schemas['EndpointResponseDto'];
type Scanner = Schemas['ScannerResponseDto'];

const FIELDS = ['name', 'dnsName', 'tags', 'scannerId'] as const;
const ID_PREFIX = 'promote';

/** The DNS name the API gives the endpoint when none is typed: the first host name that is not a wildcard, else the address. */
function defaultDnsName(entry: Entry): string {
  return entry.hostnames.find((name) => !name.startsWith('*')) ?? entry.address;
}

/**
 * Promote one inbox entry to a host endpoint (POST /discovery/inbox/{id}/promote): every field may
 * stay empty for the API's default, which the placeholders show.
 */
export function PromoteForm({
  entry,
  scanners,
  onPromoted,
  onCancel,
}: {
  entry: Entry;
  scanners: Scanner[];
  onPromoted: (endpoint: Endpoint) => void;
  onCancel: () => void;
}) {
  const [name, setName] = useState('');
  const [dnsName, setDnsName] = useState('');
  const [tags, setTags] = useState('');
  const [scannerId, setScannerId] = useState('');
  const action = useAction();
  const problems = action.error ? splitProblems(action.error, FIELDS) : noProblems<(typeof FIELDS)[number]>();
  const service = `${entry.address}:${entry.port}`;
  const dnsDefault = defaultDnsName(entry);

  function submit(event: FormEvent) {
    event.preventDefault();
    const tagList = splitList(tags);
    const body = {
      name: name.trim() || undefined,
      dnsName: dnsName.trim() || undefined,
      tags: tagList,
      scannerId: scannerId || undefined,
    };
    void action.run(() => api.POST('/api/v1/discovery/inbox/{id}/promote', { params: { path: { id: entry.id } }, body }), onPromoted);
  }

  const field = (name: (typeof FIELDS)[number]) => fieldProps(ID_PREFIX, name, problems);
  const error = (name: (typeof FIELDS)[number]) => <FieldError idPrefix={ID_PREFIX} field={name} problems={problems} />;
  return (
    <form className="card form" aria-labelledby="promote-heading" onSubmit={submit} noValidate>
      <h2 id="promote-heading">Promote {service} to an endpoint</h2>
      <p className="muted">
        The endpoint connects to {entry.address} on port {entry.port}; empty fields take the defaults shown.
      </p>
      <label htmlFor={`${ID_PREFIX}-name`}>Endpoint name</label>
      <input
        {...field('name')}
        value={name}
        maxLength={200}
        placeholder={entry.port === 443 ? dnsDefault : `${dnsDefault}:${entry.port}`}
        onChange={(event) => setName(event.target.value)}
      />
      {error('name')}
      <label htmlFor={`${ID_PREFIX}-dnsName`}>DNS name (checked against the certificate)</label>
      <input
        {...field('dnsName')}
        className="mono"
        value={dnsName}
        placeholder={dnsDefault}
        onChange={(event) => setDnsName(event.target.value)}
      />
      {error('dnsName')}
      <label htmlFor={`${ID_PREFIX}-tags`}>Tags (separated by commas)</label>
      <input {...field('tags')} value={tags} placeholder="env:prod, team:web" onChange={(event) => setTags(event.target.value)} />
      {error('tags')}
      <label htmlFor={`${ID_PREFIX}-scannerId`}>Scanner</label>
      <select {...field('scannerId')} value={scannerId} onChange={(event) => setScannerId(event.target.value)}>
        <option value="">The default scanner</option>
        {scanners.map((scanner) => (
          <option key={scanner.id} value={scanner.id}>
            {scanner.name}
          </option>
        ))}
      </select>
      {error('scannerId')}
      <GeneralProblem problems={problems} />
      <div className="actions">
        <button type="submit" className="primary" disabled={action.busy}>
          Promote to endpoint
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
