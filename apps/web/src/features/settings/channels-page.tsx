import { useEffect, useRef, useState, type FormEvent } from 'react';
import { api, type Schemas } from '../../api/client';
import { useAuth } from '../../auth/auth-context';
import { DateTime } from '../../ui/expiry';
import {
  checkedProblems,
  FieldError,
  fieldProps,
  focusFirstProblem,
  GeneralProblem,
  noProblems,
  splitProblems,
  type Problems,
} from '../../ui/form-problems';
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
  const [editing, setEditing] = useState<string | null>(null);
  const [notice, setNotice] = useState('');
  const edited = channels.data?.find((c) => c.id === editing);
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
          onEdit={(id) => {
            setNotice('');
            setEditing(id);
          }}
          onChanged={channels.reload}
          onSecret={(name, secret) => setShownSecret({ name, secret })}
        />
      )}
      <p role="status">{notice}</p>
      {mayEdit && edited && (
        <ChannelForm
          // A fresh form for each channel: its fields start from that channel's settings.
          key={edited.id}
          channel={edited}
          onSaved={(channel) => {
            setEditing(null);
            setNotice(`Saved ${channel.name}.`);
            channels.reload();
          }}
          onCancel={() => setEditing(null)}
        />
      )}
      {opened && <Deliveries id={opened} name={channels.data?.find((c) => c.id === opened)?.name ?? ''} />}
      {mayEdit && (
        <ChannelForm
          onSaved={(channel) => {
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
  onEdit,
  onChanged,
  onSecret,
}: {
  channels: Channel[];
  mayEdit: boolean;
  opened: string | null;
  onOpen: (id: string | null) => void;
  onEdit: (id: string) => void;
  onChanged: () => void;
  onSecret: (name: string, secret: string) => void;
}) {
  if (channels.length === 0) return <p>No channel yet: alerts go by e-mail only.</p>;
  return (
    <div className="table-scroll" tabIndex={0} role="region" aria-label="Notification channels">
      <table className="card-table">
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
              onEdit={onEdit}
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
  onEdit,
  onChanged,
  onSecret,
}: {
  channel: Channel;
  mayEdit: boolean;
  opened: boolean;
  onOpen: (id: string | null) => void;
  onEdit: (id: string) => void;
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
      <td className="card-title">
        {channel.name}
        {!channel.enabled && <span className="muted"> (disabled)</span>}
      </td>
      <td data-label="Kind">{KINDS[channel.kind].label}</td>
      <td className="mono" data-label="Sends to">
        {channel.urlHost}
      </td>
      <td data-label="Mode">
        {channel.mode === 'daily' ? `Daily digest at ${String(channel.digestHour).padStart(2, '0')}:00 UTC` : 'At once'}
      </td>
      <td data-label="Last delivery">{channel.lastDeliveryAt ? <DateTime value={channel.lastDeliveryAt} /> : 'never'}</td>
      <td data-label="Last error">{channel.lastError ?? '—'}</td>
      <td data-label="Actions">
        <div className="actions">
          <button type="button" aria-expanded={opened} onClick={() => onOpen(opened ? null : channel.id)}>
            {opened ? 'Hide deliveries' : 'Deliveries'}
            <span className="visually-hidden"> of {channel.name}</span>
          </button>
          {mayEdit && (
            <button type="button" onClick={() => onEdit(channel.id)}>
              Edit<span className="visually-hidden"> {channel.name}</span>
            </button>
          )}
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
          <table className="card-table">
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
                  <td className="card-title">
                    <DateTime value={delivery.at} />
                  </td>
                  <td data-label="Event">
                    {delivery.eventType}
                    {delivery.threshold !== null && delivery.threshold > 0 ? ` (${delivery.threshold} days)` : ''}
                  </td>
                  <td data-label="Status">{delivery.status}</td>
                  <td data-label="HTTP">{delivery.httpStatus ?? '—'}</td>
                  <td data-label="Error">{delivery.error ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/**
 * A new channel (the kind first, then only the fields that kind has), or a change to one (its kind
 * fixed). Editing, the URL and the secret are write-only: empty keeps the stored ones, and a new URL
 * needs the secret again, asked for here before anything is sent (docs/api-contract.md section 17).
 */
function ChannelForm({
  channel,
  onSaved,
  onCancel,
}: {
  channel?: Channel;
  onSaved: (channel: Schemas['ChannelWithSecretDto']) => void;
  onCancel?: () => void;
}) {
  const editing = channel !== undefined;
  const id = editing ? 'channel-edit' : ID;
  const [kind, setKind] = useState<Kind>(channel?.kind ?? 'webhook');
  const [name, setName] = useState(channel?.name ?? '');
  const [url, setUrl] = useState('');
  const [secret, setSecret] = useState('');
  const [tags, setTags] = useState(channel?.tags.join(', ') ?? '');
  const [events, setEvents] = useState<EventType[]>(channel?.events ?? ALL_EVENTS);
  const [daily, setDaily] = useState(channel?.mode === 'daily');
  const [digestHour, setDigestHour] = useState(String(channel?.digestHour ?? 8));
  const [enabled, setEnabled] = useState(channel?.enabled ?? true);
  const [saved, setSaved] = useState<string | null>(null);
  const save = useAction();
  // What the form's own checks found, until the next submit; otherwise the API's refusal.
  const [checked, setChecked] = useState<Problems<Field> | null>(null);
  const spec = KINDS[kind];
  const secretLabel = secretLabelOf(kind, editing);
  const nameInput = useRef<HTMLInputElement>(null);
  // Opened by a row's Edit button: the focus moves to the form it opened.
  useEffect(() => {
    if (editing) nameInput.current?.focus();
  }, [editing]);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setSaved(null);
    const found = checkedProblems<Field>({
      secret:
        editing && channel.secretSet && url.trim() !== '' && secret === ''
          ? `Enter the ${secretLabel?.toLowerCase() ?? 'secret'} again for the new URL: the stored one is never sent to a URL it was not entered for.`
          : null,
    });
    setChecked(found);
    if (found) {
      save.clearError();
      focusFirstProblem(id, found, FIELDS);
      return;
    }
    const settings = {
      name: name.trim(),
      enabled,
      mode: spec.daily && daily ? 'daily' : 'immediate',
      digestHour: Number(digestHour),
      tags: tags
        .split(',')
        .map((tag) => tag.trim())
        .filter(Boolean),
      events,
      ...(url.trim() !== '' && { url: url.trim() }),
      ...(secretLabel !== null && secret !== '' && { secret }),
    } satisfies Schemas['PatchChannelDto'];
    const done = (answered: Schemas['ChannelWithSecretDto']) => {
      setSaved(answered.name);
      setUrl('');
      setSecret('');
      if (!editing) setName('');
      onSaved(answered);
    };
    if (editing) {
      await save.run(() => api.PATCH('/api/v1/notification-channels/{id}', { params: { path: { id: channel.id } }, body: settings }), done);
    } else {
      await save.run(() => api.POST('/api/v1/notification-channels', { body: { ...settings, kind } }), done);
    }
  }

  const shown: Problems<Field> = checked ?? (save.error ? splitProblems(save.error, FIELDS) : noProblems());
  const field = (name: Field) => fieldProps(id, name, shown);
  const heading = editing ? `Edit ${channel.name}` : 'Add a channel';
  return (
    <form className="card form" aria-labelledby={`${id}-heading`} onSubmit={(event) => void submit(event)} noValidate>
      <h2 id={`${id}-heading`}>{heading}</h2>
      {editing ? (
        <p>
          Kind: {spec.label} <span className="muted">(a channel never changes kind)</span>
        </p>
      ) : (
        <>
          <label htmlFor={`${id}-kind`}>Kind</label>
          <select {...field('kind')} value={kind} onChange={(event) => setKind(event.target.value as Kind)}>
            {(Object.keys(KINDS) as Kind[]).map((value) => (
              <option key={value} value={value}>
                {KINDS[value].label}
              </option>
            ))}
          </select>
        </>
      )}
      <label htmlFor={`${id}-name`}>Name</label>
      <input {...field('name')} ref={nameInput} value={name} autoComplete="off" onChange={(event) => setName(event.target.value)} />
      <FieldError idPrefix={id} field="name" problems={shown} />
      <label htmlFor={`${id}-url`}>{spec.url}</label>
      <p className="muted hint" id={`${id}-url-hint`}>
        {editing ? `Stored for ${channel.urlHost}, never shown: leave empty to keep it. ${spec.urlHint}` : spec.urlHint}
      </p>
      <input
        {...field('url')}
        aria-describedby={[`${id}-url-hint`, field('url')['aria-describedby']].filter(Boolean).join(' ')}
        type="url"
        value={url}
        autoComplete="off"
        onChange={(event) => setUrl(event.target.value)}
      />
      <FieldError idPrefix={id} field="url" problems={shown} />
      {secretLabel !== null && (
        <>
          <label htmlFor={`${id}-secret`}>{secretLabel}</label>
          <p className="muted hint" id={`${id}-secret-hint`}>
            {editing && channel.secretSet
              ? 'One is stored, never shown: leave empty to keep it. A new URL needs it again.'
              : spec.secretHint}
          </p>
          <input
            {...field('secret')}
            aria-describedby={[`${id}-secret-hint`, field('secret')['aria-describedby']].filter(Boolean).join(' ')}
            type="password"
            autoComplete="new-password"
            value={secret}
            onChange={(event) => setSecret(event.target.value)}
          />
          <FieldError idPrefix={id} field="secret" problems={shown} />
        </>
      )}
      <label htmlFor={`${id}-tags`}>Tags</label>
      <p className="muted hint" id={`${id}-tags-hint`}>
        Comma-separated; empty: every endpoint.
      </p>
      <input
        {...field('tags')}
        aria-describedby={[`${id}-tags-hint`, field('tags')['aria-describedby']].filter(Boolean).join(' ')}
        value={tags}
        autoComplete="off"
        onChange={(event) => setTags(event.target.value)}
      />
      <FieldError idPrefix={id} field="tags" problems={shown} />
      <fieldset>
        <legend>Events</legend>
        {ALL_EVENTS.map((type) => (
          <Checkbox
            key={type}
            id={`${id}-event-${type}`}
            label={EVENT_NAMES[type]}
            checked={events.includes(type)}
            onChange={(on) => setEvents(on ? [...events, type] : events.filter((e) => e !== type))}
          />
        ))}
      </fieldset>
      <FieldError idPrefix={id} field="events" problems={shown} />
      {spec.daily && (
        <>
          <Checkbox id={`${id}-daily`} label="Gather the alerts into one daily digest" checked={daily} onChange={setDaily} />
          {daily && (
            <>
              <label htmlFor={`${id}-digestHour`}>Digest hour (UTC)</label>
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
      {editing && <Checkbox id={`${id}-enabled`} label="Enabled: the alert job delivers to it" checked={enabled} onChange={setEnabled} />}
      <GeneralProblem problems={shown} />
      <div className="actions">
        <button type="submit" className="primary" disabled={save.busy}>
          {editing ? 'Save the channel' : 'Add the channel'}
        </button>
        {onCancel && (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        )}
        <span role="status">{saved ? `${editing ? 'Saved' : 'Added'} ${saved}.` : ''}</span>
      </div>
    </form>
  );
}

/**
 * The label of the kind's secret field, or null when the form has none: a webhook's signing secret
 * is generated when it is created, and can be entered again when it is edited.
 */
function secretLabelOf(kind: Kind, editing: boolean): string | null {
  if (kind === 'webhook') return editing ? 'Signing secret' : null;
  return KINDS[kind].secret;
}
