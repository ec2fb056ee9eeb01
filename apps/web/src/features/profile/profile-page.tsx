import { useState, type FormEvent } from 'react';
import { api, type Schemas } from '../../api/client';
import { useAuth } from '../../auth/auth-context';
import { DateTime } from '../../ui/expiry';
import { Fact } from '../../ui/facts';
import * as check from '../../ui/field-checks';
import { FieldError, fieldProps, GeneralProblem, type Problems, splitProblems } from '../../ui/form-problems';
import { LoadError, useTitle } from '../../ui/layout';
import { ConfirmAction, ShownOnce } from '../../ui/shown-once';
import { useAction } from '../../ui/use-action';
import { useApiQuery } from '../../ui/use-api-query';
import { AlertEmails } from './alert-emails';

/** The caller's own settings: who they are (read-only), tag subscriptions, alert e-mails, calendar feed, API keys and password (self:access, every role). */
export function ProfilePage() {
  useTitle('Profile');
  return (
    <>
      <h1>Profile</h1>
      <Account />
      <TagSubscriptions />
      <AlertEmails />
      <CalendarFeed />
      <ApiKeys />
      <PasswordChange />
    </>
  );
}

/**
 * Who the person is here, read-only. Single sign-on links accounts by e-mail address, so only an
 * administrator changes one (the API refuses `email` on PUT /me).
 */
function Account() {
  const { me } = useAuth();
  return (
    <section aria-labelledby="account-heading">
      <h2 id="account-heading">Account</h2>
      {me && (
        <dl className="facts">
          <Fact term="Name">{me.name === '' ? '—' : me.name}</Fact>
          <Fact term="E-mail">{me.email}</Fact>
          <Fact term="Role">{me.role}</Fact>
        </dl>
      )}
      <p className="muted small">Only an administrator can change your e-mail address: single sign-on links accounts by it.</p>
    </section>
  );
}

const SUBSCRIPTION_ID = 'subscription';
/** PUT /me/tag-subscriptions takes at most this many (docs/api-contract.md section 4). */
const MAX_SUBSCRIPTIONS = 100;

/** The tag typed to add, checked as the API would: its shape, and room in the list for it. */
function subscriptionTagProblem(tag: string, current: readonly string[]): string | null {
  const shape = check.tags([tag]);
  if (shape !== null || current.includes(tag) || current.length < MAX_SUBSCRIPTIONS) return shape;
  return `You follow ${MAX_SUBSCRIPTIONS} tags, the most there can be: remove one before adding another.`;
}

function TagSubscriptions() {
  const { can } = useAuth();
  const subscriptions = useApiQuery('tag-subscriptions', () => api.GET('/api/v1/me/tag-subscriptions'));
  const mayReadTags = can('tags:view');
  const tags = useApiQuery(`tags:${String(mayReadTags)}`, () =>
    mayReadTags ? api.GET('/api/v1/tags') : Promise.resolve({ data: [] as Schemas['TagSummaryDto'][], response: new Response() }),
  );
  // The edited list; null while it equals what the server holds.
  const [draft, setDraft] = useState<string[] | null>(null);
  const [adding, setAdding] = useState('');
  const saving = useAction();
  const [saved, setSaved] = useState(false);
  // The form's own check of the tag typed, until the next add; otherwise the API's refusal of the list.
  const [checked, setChecked] = useState<string | null>(null);
  const refusal = splitProblems<'tags'>(saving.error ?? '', ['tags']);
  // The API names the list (`tags[1] must be …`): said by the field that adds to it.
  const problems: Problems<'tag'> = {
    byField: checked ? { tag: checked } : refusal.byField.tags ? { tag: refusal.byField.tags } : {},
    general: checked ? null : refusal.general,
  };
  const current = draft ?? subscriptions.data ?? [];

  function add(event: FormEvent) {
    event.preventDefault();
    const tag = adding.trim();
    if (tag === '') return;
    const found = subscriptionTagProblem(tag, current);
    setChecked(found);
    if (found) {
      saving.clearError();
      document.getElementById(`${SUBSCRIPTION_ID}-tag`)?.focus();
      return;
    }
    if (!current.includes(tag)) setDraft([...current, tag]);
    setAdding('');
    setSaved(false);
  }

  async function save() {
    setSaved(false);
    setChecked(null);
    await saving.run(
      () => api.PUT('/api/v1/me/tag-subscriptions', { body: current }),
      () => {
        setDraft(null);
        setSaved(true);
        subscriptions.reload();
      },
    );
  }

  return (
    <section aria-labelledby="subscriptions-heading">
      <h2 id="subscriptions-heading">Tag subscriptions</h2>
      <p className="muted">
        Alerts and your calendar feed cover the endpoints carrying one of these tags; no subscription means every endpoint.
      </p>
      <LoadError message={subscriptions.error ?? tags.error} />
      {subscriptions.data && (
        <>
          {current.length === 0 ? (
            <p>No subscriptions: every endpoint.</p>
          ) : (
            <ul aria-label="Subscribed tags">
              {current.map((tag) => (
                <li key={tag}>
                  <span className="mono">{tag}</span>{' '}
                  <button
                    type="button"
                    aria-label={`Remove ${tag}`}
                    onClick={() => {
                      setDraft(current.filter((other) => other !== tag));
                      setSaved(false);
                    }}
                  >
                    Remove
                  </button>
                </li>
              ))}
            </ul>
          )}
          <form className="actions" aria-label="Add a tag subscription" onSubmit={add} noValidate>
            <label htmlFor={`${SUBSCRIPTION_ID}-tag`}>Tag to add (category:value or value)</label>
            <input
              {...fieldProps(SUBSCRIPTION_ID, 'tag', problems)}
              list="known-tags"
              value={adding}
              autoComplete="off"
              onChange={(event) => setAdding(event.target.value)}
            />
            <datalist id="known-tags">
              {(tags.data ?? []).map((tag) => (
                <option key={tag.tag} value={tag.tag} />
              ))}
            </datalist>
            <button type="submit">Add tag</button>
          </form>
          <FieldError idPrefix={SUBSCRIPTION_ID} field="tag" problems={problems} />
          <div className="actions">
            <button type="button" className="primary" disabled={saving.busy || draft === null} onClick={() => void save()}>
              Save subscriptions
            </button>
            {saved && <span role="status">Saved.</span>}
          </div>
          <GeneralProblem problems={problems} />
        </>
      )}
    </section>
  );
}

function CalendarFeed() {
  const me = useApiQuery('me', () => api.GET('/api/v1/me'));
  const [url, setUrl] = useState<string | null>(null);
  const action = useAction();
  const enabled = url !== null || me.data?.calendarFeedEnabled === true;

  const create = () =>
    action.run(
      () => api.POST('/api/v1/me/calendar-token'),
      (answer) => setUrl(answer.url),
    );
  const turnOff = () =>
    action.run(
      // openapi-fetch's body type drops a property whose only type is null (UpdateMeDto's
      // `calendarToken?: null`), so the body is written out by the serializer.
      () =>
        api.PUT('/api/v1/me', {
          body: {},
          bodySerializer: () => JSON.stringify({ calendarToken: null } satisfies Schemas['UpdateMeDto']),
        }),
      () => {
        setUrl(null);
        me.reload();
      },
    );

  return (
    <section aria-labelledby="calendar-heading">
      <h2 id="calendar-heading">Calendar feed</h2>
      <LoadError message={me.error} />
      {me.data && (
        <>
          <p>
            {enabled
              ? 'Your calendar feed is on: it lists the expiry dates of the certificates of your subscribed endpoints.'
              : 'Your calendar feed is off.'}
          </p>
          {url && (
            <ShownOnce
              id="feed-url"
              label="Feed URL"
              copyLabel="Copy the feed URL"
              value={url}
              note="Subscribe to this address in your calendar. It is shown only now; a new one replaces it."
            />
          )}
          <div className="actions">
            <button type="button" disabled={action.busy} onClick={() => void create()}>
              {enabled ? 'Create a new feed URL' : 'Turn the feed on'}
            </button>
            {enabled && (
              <button type="button" disabled={action.busy} onClick={() => void turnOff()}>
                Turn the feed off
              </button>
            )}
          </div>
          <LoadError message={action.error} />
        </>
      )}
    </section>
  );
}

function ApiKeys() {
  const keys = useApiQuery('api-keys', () => api.GET('/api/v1/me/api-keys'));
  const [name, setName] = useState('');
  const [expires, setExpires] = useState('');
  const [created, setCreated] = useState<Schemas['CreatedApiKeyResponseDto'] | null>(null);
  const creation = useAction();
  const deletion = useAction();
  const [confirming, setConfirming] = useState<string | null>(null);

  async function create(event: FormEvent) {
    event.preventDefault();
    // The date field names a local day; the key works until the end of it.
    const body = expires === '' ? { name } : { name, expiresAt: new Date(`${expires}T23:59:59`).toISOString() };
    await creation.run(
      () => api.POST('/api/v1/me/api-keys', { body }),
      (key) => {
        setCreated(key);
        setName('');
        setExpires('');
        keys.reload();
      },
    );
  }

  const remove = (id: string) =>
    deletion.run(
      () => api.DELETE('/api/v1/me/api-keys/{id}', { params: { path: { id } } }),
      () => {
        setConfirming(null);
        if (created?.id === id) setCreated(null);
        keys.reload();
      },
    );

  return (
    <section aria-labelledby="keys-heading">
      <h2 id="keys-heading">API keys</h2>
      <p className="muted">A key acts as you, with your role, sent as “Authorization: Bearer &lt;key&gt;”.</p>
      <LoadError message={keys.error} />
      {keys.data && keys.data.length === 0 && <p className="muted">No API key.</p>}
      {keys.data && keys.data.length > 0 && (
        <div className="table-scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Created</th>
                <th scope="col">Expires</th>
                <th scope="col">Last used</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {keys.data.map((key) => (
                <tr key={key.id}>
                  <td>{key.name}</td>
                  <td className="mono">{key.keyId}</td>
                  <td>
                    <DateTime value={key.createdAt} />
                  </td>
                  <td>
                    <DateTime value={key.expiresAt} />
                  </td>
                  <td>
                    <DateTime value={key.lastUsedAt} />
                  </td>
                  <td>
                    <ConfirmAction
                      label="Delete"
                      accessibleLabel={`Delete ${key.name}`}
                      question="Delete this key? It stops working at once."
                      confirmLabel={`Yes, delete ${key.name}`}
                      confirming={confirming === key.id}
                      busy={deletion.busy}
                      onAsk={() => {
                        setConfirming(key.id);
                        deletion.clearError();
                      }}
                      onCancel={() => setConfirming(null)}
                      onConfirm={() => void remove(key.id)}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <LoadError message={deletion.error} />
      {created && (
        <ShownOnce
          id="new-key"
          label="API key"
          copyLabel="Copy the API key"
          value={created.key}
          note={`The key “${created.name}”, shown only now: store it safely.`}
        />
      )}
      <form className="form" onSubmit={(event) => void create(event)}>
        <h3>New API key</h3>
        <label htmlFor="key-name">Name</label>
        <input id="key-name" value={name} required onChange={(event) => setName(event.target.value)} />
        <label htmlFor="key-expires">Expires (optional, end of that day)</label>
        <input id="key-expires" type="date" value={expires} onChange={(event) => setExpires(event.target.value)} />
        <LoadError message={creation.error} />
        <div className="actions">
          <button type="submit" className="primary" disabled={creation.busy}>
            Create API key
          </button>
        </div>
      </form>
    </section>
  );
}

const PASSWORD_FORM = 'own-password';
const PASSWORD_FIELDS = ['currentPassword', 'password', 'repeated'] as const;
type PasswordField = (typeof PASSWORD_FIELDS)[number];

/**
 * A new password, given the current one. The API then ends every session of the person, this one
 * included, so the screen goes to sign-in and says so. Someone who signs in only through OIDC has
 * no password to change.
 */
function PasswordChange() {
  const { me, endSession } = useAuth();
  const [values, setValues] = useState<Record<PasswordField, string>>({ currentPassword: '', password: '', repeated: '' });
  const [mismatch, setMismatch] = useState(false);
  const action = useAction();
  // The API names `currentPassword` or `password` in its sentences; a mismatch is caught here.
  const problems: Problems<PasswordField> = mismatch
    ? { byField: { repeated: 'The two new passwords differ.' }, general: null }
    : splitProblems(action.error ?? '', PASSWORD_FIELDS);

  async function change(event: FormEvent) {
    event.preventDefault();
    const differ = values.password !== values.repeated;
    setMismatch(differ);
    if (differ) return;
    await action.run(
      () => api.PUT('/api/v1/me', { body: { password: values.password, currentPassword: values.currentPassword } }),
      () => endSession('Your password was changed and every session of yours has ended: sign in with the new password.'),
    );
  }

  const field = (name: PasswordField, label: string, autoComplete: string) => (
    <>
      <label htmlFor={`${PASSWORD_FORM}-${name}`}>{label}</label>
      <input
        {...fieldProps(PASSWORD_FORM, name, problems)}
        type="password"
        autoComplete={autoComplete}
        value={values[name]}
        onChange={(event) => setValues({ ...values, [name]: event.target.value })}
      />
      <FieldError idPrefix={PASSWORD_FORM} field={name} problems={problems} />
    </>
  );

  return (
    <section aria-labelledby="password-heading">
      <h2 id="password-heading">Password</h2>
      {me && !me.localSignIn && <p className="muted">You sign in through single sign-on (OIDC): there is no password to change here.</p>}
      {me?.localSignIn && (
        <form className="form" aria-labelledby="password-heading" onSubmit={(event) => void change(event)} noValidate>
          {field('currentPassword', 'Current password', 'current-password')}
          {field('password', 'New password (at least 8 characters)', 'new-password')}
          {field('repeated', 'New password again', 'new-password')}
          <p className="muted small">Changing it signs you out everywhere, here too.</p>
          <GeneralProblem problems={problems} />
          <div className="actions">
            <button type="submit" disabled={action.busy}>
              Change password
            </button>
          </div>
        </form>
      )}
    </section>
  );
}
