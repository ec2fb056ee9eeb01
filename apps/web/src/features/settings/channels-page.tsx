import { useState, type FormEvent } from 'react';
import { api, type Schemas } from '../../api/client';
import { useAuth } from '../../auth/auth-context';
import { DateTime } from '../../ui/expiry';
import { FieldError, fieldProps, GeneralProblem, noProblems, splitProblems, type Problems } from '../../ui/form-problems';
import { LoadError, useTitle } from '../../ui/layout';
import { ConfirmAction, ShownOnce } from '../../ui/shown-once';
import { useAction } from '../../ui/use-action';
import { useApiQuery } from '../../ui/use-api-query';
import { Checkbox } from './secret-field';
import { ReadOnlyNote } from './settings-section';
import { EVENT_NAMES, type EventType } from './event-names';

type Channel = Schemas['ChannelResponseDto'];
type Kind = Channel['kind'];
const FIELDS = ['name', 'kind', 'url', 'secret', 'tags', 'events', 'mode', 'digestHour'] as const;
type Field = (typeof FIELDS)[number];
const ID = 'channel';

/** What each kind asks for: only its own fields are shown (docs/api-contract.md section 17). */
const KINDS: Record<Kind, { label: string; url: string; urlHint: string; secret: string | null; secretHint: string; daily: boolean }> = {
  webhook: {
    label: 'Webhook (signed)',
    url: 'Receiver URL',
    urlHint: 'Signed per Standard Webhooks; the signing secret is generated and shown once.',
    secret: null,
    secretHint: '',
    daily: false,
  },
  slack: {
    label: 'Slack',
    url: 'Incoming webhook URL',
    urlHint: 'The URL is the credential: it is stored encrypted, never shown.',
    secret: null,
    secretHint: '',
    daily: true,
  },
  teams: {
    label: 'Microsoft Teams',
    url: 'Workflow or incoming webhook URL',
    urlHint: 'Posts an Adaptive Card.',
    secret: null,
    secretHint: '',
    daily: true,
  },
  ntfy: {
    label: 'ntfy',
    url: 'Topic URL',
    urlHint: 'For example https://ntfy.sh/my-certificates.',
    secret: 'Access token',
    secretHint: 'Optional: sent as a bearer token.',
    daily: true,
  },
  pagerduty: {
    label: 'PagerDuty',
    url: 'Events API URL',
    urlHint: 'Empty: https://events.pagerduty.com/v2/enqueue.',
    secret: 'Routing key',
    secretHint: "Required: the integration key of the PagerDuty service's Events API v2 integration.",
    daily: false,
  },
};
const ALL_EVENTS = Object.keys(EVENT_NAMES) as EventType[];

/** Notification channels: where alerts go besides e-mail, a test message, and each channel's deliveries. */
export function ChannelsPage() {
  useTitle('Notification channels');
  const { can } = useAuth();
  const mayEdit = can('settings:edit');
  const channels = useApiQuery('notification-channels', () => api.GET('/api/v1/notification-channels'));
  const [shownSecret, setShownSecret] = useState<{ name: string; secret: string } | null>(null);
  const [opened, setOpened] = useState<string | null>(null);
  return (
    <>
      <h1>Notification channels</h1>
      <p className="muted">
        Alerts also go to these channels, whatever the mail setting: each hears the events it chose for the endpoints sharing one of its
        tags (no tags: every endpoint).
      </p>
      {!mayEdit && <ReadOnlyNote />}
      <LoadError message={channels.error} />
      {shownSecret && (
        <ShownOnce
          id="channel-secret"
          label={`Signing secret of ${shownSecret.name}`}
          copyLabel="Copy the signing secret"
          value={shownSecret.secret}
          note="Store this signing secret in the receiver now: it is not shown again. Receivers verify each webhook's signature with it."
        />
      )}
      {channels.data && (
        <ChannelTable
          channels={channels.data}
          mayEdit={mayEdit}
          opened={opened}
          onOpen={setOpened}
          onChanged={channels.reload}
          onSecret={(name, secret) => setShownSecret({ name, secret })}
        />
      )}
      {opened && <Deliveries id={opened} name={channels.data?.find((c) => c.id === opened)?.name ?? ''} />}
      {mayEdit && (
        <NewChannel
          onCreated={(channel) => {
            channels.reload();
            setShownSecret(channel.secret ? { name: channel.name, secret: channel.secret } : null);
          }}
        />
      )}
    </>
  );
}

function ChannelTable({
  channels,
  mayEdit,
  opened,
  onOpen,
  onChanged,
  onSecret,
}: {
  channels: Channel[];
  mayEdit: boolean;
  opened: string | null;
  onOpen: (id: string | null) => void;
  onChanged: () => void;
  onSecret: (name: string, secret: string) => void;
}) {
  if (channels.length === 0) return <p>No channel yet: alerts go by e-mail only.</p>;
  return (
    <div className="table-scroll" tabIndex={0} role="region" aria-label="Notification channels">
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Kind</th>
            <th scope="col">Sends to</th>
            <th scope="col">Mode</th>
            <th scope="col">Last delivery</th>
            <th scope="col">Last error</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {channels.map((channel) => (
            <ChannelRow
              key={channel.id}
              channel={channel}
              mayEdit={mayEdit}
              opened={opened === channel.id}
              onOpen={onOpen}
              onChanged={onChanged}
              onSecret={onSecret}
            />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function ChannelRow({
  channel,
  mayEdit,
  opened,
  onOpen,
  onChanged,
  onSecret,
}: {
  channel: Channel;
  mayEdit: boolean;
  opened: boolean;
  onOpen: (id: string | null) => void;
  onChanged: () => void;
  onSecret: (name: string, secret: string) => void;
}) {
  const test = useAction();
  const remove = useAction();
  const rotate = useAction();
  const [tested, setTested] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const path = { params: { path: { id: channel.id } } };
  return (
    <tr>
      <th scope="row">
        {channel.name}
        {!channel.enabled && <span className="muted"> (disabled)</span>}
      </th>
      <td>{KINDS[channel.kind].label}</td>
      <td className="mono">{channel.urlHost}</td>
      <td>{channel.mode === 'daily' ? `Daily digest at ${String(channel.digestHour).padStart(2, '0')}:00 UTC` : 'At once'}</td>
      <td>{channel.lastDeliveryAt ? <DateTime value={channel.lastDeliveryAt} /> : 'never'}</td>
      <td>{channel.lastError ?? '—'}</td>
      <td>
        <div className="actions">
          <button type="button" aria-expanded={opened} onClick={() => onOpen(opened ? null : channel.id)}>
            {opened ? 'Hide deliveries' : 'Deliveries'}
            <span className="visually-hidden"> of {channel.name}</span>
          </button>
          {mayEdit && (
            <button
              type="button"
              disabled={test.busy}
              onClick={() => {
                setTested(false);
                void test
                  .run(
                    () => api.POST('/api/v1/notification-channels/{id}/test', path),
                    () => setTested(true),
                  )
                  .then(onChanged);
              }}
            >
              {test.busy ? 'Sending…' : 'Send test'}
              <span className="visually-hidden"> to {channel.name}</span>
            </button>
          )}
          {mayEdit && channel.kind === 'webhook' && (
            <button
              type="button"
              disabled={rotate.busy}
              onClick={() =>
                void rotate.run(
                  () => api.POST('/api/v1/notification-channels/{id}/rotate-secret', path),
                  (r) => r.secret && onSecret(r.name, r.secret),
                )
              }
            >
              New signing secret<span className="visually-hidden"> for {channel.name}</span>
            </button>
          )}
          {mayEdit && (
            <ConfirmAction
              label="Delete"
              accessibleLabel={`Delete ${channel.name}`}
              question={`Delete ${channel.name} and its deliveries?`}
              confirmLabel="Yes, delete"
              confirming={confirming}
              busy={remove.busy}
              onAsk={() => setConfirming(true)}
              onCancel={() => setConfirming(false)}
              onConfirm={() => void remove.run(() => api.DELETE('/api/v1/notification-channels/{id}', path), onChanged)}
            />
          )}
          <span role="status">{tested ? 'The receiver accepted the test message.' : ''}</span>
        </div>
        {[test.error, remove.error, rotate.error].filter(Boolean).map((error) => (
          <p key={error} className="error" role="alert">
            {error}
          </p>
        ))}
      </td>
    </tr>
  );
}

/** The attempts to deliver to one channel, newest first, with why each failure failed. */
function Deliveries({ id, name }: { id: string; name: string }) {
  const deliveries = useApiQuery(`channel-deliveries-${id}`, () =>
    api.GET('/api/v1/notification-channels/{id}/deliveries', { params: { path: { id }, query: { limit: 50 } } }),
  );
  return (
    <section className="card" aria-labelledby="deliveries-heading">
      <h2 id="deliveries-heading">Deliveries to {name}</h2>
      <LoadError message={deliveries.error} />
      {deliveries.data?.length === 0 && <p>Nothing was sent to this channel yet.</p>}
      {deliveries.data && deliveries.data.length > 0 && (
        <div className="table-scroll" tabIndex={0} role="region" aria-label={`Deliveries to ${name}`}>
          <table>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">HTTP</th>
                <th scope="col">Error</th>
              </tr>
            </thead>
            <tbody>
              {deliveries.data.map((delivery) => (
                <tr key={delivery.id}>
                  <td>
                    <DateTime value={delivery.at} />
                  </td>
                  <td>
                    {delivery.eventType}
                    {delivery.threshold !== null && delivery.threshold > 0 ? ` (${delivery.threshold} days)` : ''}
                  </td>
                  <td>{delivery.status}</td>
                  <td>{delivery.httpStatus ?? '—'}</td>
                  <td>{delivery.error ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** A new channel: the kind first, then only the fields that kind has. */
function NewChannel({ onCreated }: { onCreated: (channel: Schemas['ChannelWithSecretDto']) => void }) {
  const [kind, setKind] = useState<Kind>('webhook');
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [secret, setSecret] = useState('');
  const [tags, setTags] = useState('');
  const [events, setEvents] = useState<EventType[]>(ALL_EVENTS);
  const [daily, setDaily] = useState(false);
  const [digestHour, setDigestHour] = useState('8');
  const [created, setCreated] = useState<string | null>(null);
  const save = useAction();
  const spec = KINDS[kind];

  async function submit(event: FormEvent) {
    event.preventDefault();
    setCreated(null);
    const body: Schemas['ChannelInputDto'] = {
      name: name.trim(),
      kind,
      enabled: true,
      mode: spec.daily && daily ? 'daily' : 'immediate',
      digestHour: Number(digestHour),
      tags: tags
        .split(',')
        .map((tag) => tag.trim())
        .filter(Boolean),
      events,
      ...(url.trim() !== '' && { url: url.trim() }),
      ...(spec.secret !== null && secret !== '' && { secret }),
    };
    await save.run(
      () => api.POST('/api/v1/notification-channels', { body }),
      (channel) => {
        setCreated(channel.name);
        setName('');
        setUrl('');
        setSecret('');
        onCreated(channel);
      },
    );
  }

  const shown: Problems<Field> = save.error ? splitProblems(save.error, FIELDS) : noProblems();
  const field = (name: Field) => fieldProps(ID, name, shown);
  return (
    <form className="card form" aria-labelledby="new-channel-heading" onSubmit={(event) => void submit(event)} noValidate>
      <h2 id="new-channel-heading">Add a channel</h2>
      <label htmlFor={`${ID}-kind`}>Kind</label>
      <select {...field('kind')} value={kind} onChange={(event) => setKind(event.target.value as Kind)}>
        {(Object.keys(KINDS) as Kind[]).map((value) => (
          <option key={value} value={value}>
            {KINDS[value].label}
          </option>
        ))}
      </select>
      <label htmlFor={`${ID}-name`}>Name</label>
      <input {...field('name')} value={name} autoComplete="off" onChange={(event) => setName(event.target.value)} />
      <FieldError idPrefix={ID} field="name" problems={shown} />
      <label htmlFor={`${ID}-url`}>{spec.url}</label>
      <p className="muted hint" id={`${ID}-url-hint`}>
        {spec.urlHint}
      </p>
      <input
        {...field('url')}
        aria-describedby={[`${ID}-url-hint`, field('url')['aria-describedby']].filter(Boolean).join(' ')}
        type="url"
        value={url}
        autoComplete="off"
        onChange={(event) => setUrl(event.target.value)}
      />
      <FieldError idPrefix={ID} field="url" problems={shown} />
      {spec.secret !== null && (
        <>
          <label htmlFor={`${ID}-secret`}>{spec.secret}</label>
          <p className="muted hint" id={`${ID}-secret-hint`}>
            {spec.secretHint}
          </p>
          <input
            {...field('secret')}
            aria-describedby={[`${ID}-secret-hint`, field('secret')['aria-describedby']].filter(Boolean).join(' ')}
            type="password"
            autoComplete="new-password"
            value={secret}
            onChange={(event) => setSecret(event.target.value)}
          />
          <FieldError idPrefix={ID} field="secret" problems={shown} />
        </>
      )}
      <label htmlFor={`${ID}-tags`}>Tags</label>
      <p className="muted hint" id={`${ID}-tags-hint`}>
        Comma-separated; empty: every endpoint.
      </p>
      <input
        {...field('tags')}
        aria-describedby={[`${ID}-tags-hint`, field('tags')['aria-describedby']].filter(Boolean).join(' ')}
        value={tags}
        autoComplete="off"
        onChange={(event) => setTags(event.target.value)}
      />
      <FieldError idPrefix={ID} field="tags" problems={shown} />
      <fieldset>
        <legend>Events</legend>
        {ALL_EVENTS.map((type) => (
          <Checkbox
            key={type}
            id={`${ID}-event-${type}`}
            label={EVENT_NAMES[type]}
            checked={events.includes(type)}
            onChange={(on) => setEvents(on ? [...events, type] : events.filter((e) => e !== type))}
          />
        ))}
      </fieldset>
      <FieldError idPrefix={ID} field="events" problems={shown} />
      {spec.daily && (
        <>
          <Checkbox id={`${ID}-daily`} label="Gather the alerts into one daily digest" checked={daily} onChange={setDaily} />
          {daily && (
            <>
              <label htmlFor={`${ID}-digestHour`}>Digest hour (UTC)</label>
              <select {...field('digestHour')} value={digestHour} onChange={(event) => setDigestHour(event.target.value)}>
                {Array.from({ length: 24 }, (_, hour) => (
                  <option key={hour} value={hour}>
                    {String(hour).padStart(2, '0')}:00
                  </option>
                ))}
              </select>
            </>
          )}
        </>
      )}
      <GeneralProblem problems={shown} />
      <div className="actions">
        <button type="submit" className="primary" disabled={save.busy}>
          Add the channel
        </button>
        <span role="status">{created ? `Added ${created}.` : ''}</span>
      </div>
    </form>
  );
}
