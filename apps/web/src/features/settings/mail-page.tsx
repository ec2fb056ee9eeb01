import { useState, type FormEvent } from 'react';
import { api, type Schemas } from '../../api/client';
import { useAuth } from '../../auth/auth-context';
import * as check from '../../ui/field-checks';
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
import { useAction } from '../../ui/use-action';
import { useApiQuery } from '../../ui/use-api-query';
import { Checkbox, SecretField, secretToSend } from './secret-field';
import { ReadOnlyNote } from './settings-section';
import { FactsSection } from '../../ui/facts';
import { orNull } from './form-values';
import { alertRunSentence } from './alert-run';

type MailSettings = Schemas['MailSettingsResponseDto'];
type MailUpdate = Schemas['UpdateMailSettingsDto'];
const FIELDS = [
  'enabled',
  'host',
  'port',
  'tlsMode',
  'auth',
  'username',
  'password',
  'fromAddress',
  'fromName',
  'allowInvalidCertificate',
] as const;
type Field = (typeof FIELDS)[number];
const ID = 'mail';

const TLS_MODES: { value: MailSettings['tlsMode']; label: string }[] = [
  { value: 'none', label: 'None (plain SMTP)' },
  { value: 'starttls', label: 'STARTTLS' },
  { value: 'tls', label: 'TLS from the start (SMTPS)' },
];
const AUTH_MODES: { value: MailSettings['auth']; label: string }[] = [
  { value: 'none', label: 'None' },
  { value: 'plain', label: 'PLAIN' },
  { value: 'login', label: 'LOGIN' },
];

/** The SMTP server the alerts go through, a test e-mail, and the alert job run on demand. */
export function MailPage() {
  useTitle('Mail');
  const { can } = useAuth();
  const mayEdit = can('settings:edit');
  const mail = useApiQuery('mail-settings', () => api.GET('/api/v1/settings/mail'));
  return (
    <>
      <h1>Mail</h1>
      <LoadError message={mail.error} />
      {mail.data && (mayEdit ? <MailForm initial={mail.data} /> : <MailFacts mail={mail.data} />)}
      {mail.data && !mayEdit && <ReadOnlyNote />}
      {mayEdit && <TestMail />}
      {mayEdit && <RunAlerts />}
    </>
  );
}

function MailFacts({ mail }: { mail: MailSettings }) {
  const rows: [string, string][] = [
    ['Sending', mail.enabled ? 'enabled' : 'disabled'],
    ['Host', mail.host ?? '—'],
    ['Port', mail.port === null ? '—' : String(mail.port)],
    ['Encryption', TLS_MODES.find((mode) => mode.value === mail.tlsMode)?.label ?? mail.tlsMode],
    ['Authentication', AUTH_MODES.find((mode) => mode.value === mail.auth)?.label ?? mail.auth],
    ['User name', mail.username ?? '—'],
    ['Password', mail.passwordSet ? 'a password is set' : 'none'],
    ['From address', mail.fromAddress ?? '—'],
    ['From name', mail.fromName ?? '—'],
    ['Self-signed server certificate', mail.allowInvalidCertificate ? 'accepted' : 'refused'],
  ];
  return <FactsSection id="mail-facts-heading" heading="SMTP server" rows={rows} />;
}

function MailForm({ initial }: { initial: MailSettings }) {
  // What the server holds, from the load and then from each save's answer.
  const [saved, setSaved] = useState(initial);
  const [enabled, setEnabled] = useState(saved.enabled);
  const [host, setHost] = useState(saved.host ?? '');
  const [port, setPort] = useState(saved.port === null ? '' : String(saved.port));
  const [tlsMode, setTlsMode] = useState(saved.tlsMode);
  const [auth, setAuth] = useState(saved.auth);
  const [username, setUsername] = useState(saved.username ?? '');
  const [password, setPassword] = useState('');
  const [clearPassword, setClearPassword] = useState(false);
  const [fromAddress, setFromAddress] = useState(saved.fromAddress ?? '');
  const [fromName, setFromName] = useState(saved.fromName ?? '');
  const [allowInvalid, setAllowInvalid] = useState(saved.allowInvalidCertificate);
  const [done, setDone] = useState(false);
  const save = useAction();
  // What the form's own checks found, until the next submit; otherwise the API's refusal.
  const [checked, setChecked] = useState<Problems<Field> | null>(null);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setDone(false);
    const found = checkedProblems<Field>({
      host: check.dnsName(host),
      port: check.port(port),
      fromAddress: check.email(fromAddress),
    });
    setChecked(found);
    if (found) {
      save.clearError();
      focusFirstProblem(ID, found, FIELDS);
      return;
    }
    // A port that is not a number is sent as written, for the API to name the problem.
    const portNumber = /^\d+$/.test(port.trim()) ? Number(port.trim()) : (orNull(port) as unknown as number | null);
    const body: MailUpdate = {
      enabled,
      host: orNull(host),
      port: portNumber,
      tlsMode,
      auth,
      username: orNull(username),
      password: secretToSend(password, clearPassword),
      fromAddress: orNull(fromAddress),
      fromName: orNull(fromName),
      allowInvalidCertificate: allowInvalid,
    };
    const ok = await save.run(
      () => api.PUT('/api/v1/settings/mail', { body }),
      (stored) => {
        setSaved(stored);
        setPassword('');
        setClearPassword(false);
      },
    );
    setDone(ok);
  }

  const shown: Problems<Field> = checked ?? (save.error ? splitProblems(save.error, FIELDS) : noProblems());
  const field = (name: Field) => fieldProps(ID, name, shown);
  return (
    <form className="card form" aria-labelledby="mail-heading" onSubmit={(event) => void submit(event)} noValidate>
      <h2 id="mail-heading">SMTP server</h2>
      <Checkbox id={`${ID}-enabled`} label="Send e-mail (alerts and tests)" checked={enabled} onChange={setEnabled} />
      <label htmlFor={`${ID}-host`}>Host</label>
      <input {...field('host')} value={host} autoComplete="off" onChange={(event) => setHost(event.target.value)} />
      <FieldError idPrefix={ID} field="host" problems={shown} />
      <label htmlFor={`${ID}-port`}>Port</label>
      <input {...field('port')} inputMode="numeric" value={port} autoComplete="off" onChange={(event) => setPort(event.target.value)} />
      <FieldError idPrefix={ID} field="port" problems={shown} />
      <label htmlFor={`${ID}-tlsMode`}>Encryption</label>
      <select {...field('tlsMode')} value={tlsMode} onChange={(event) => setTlsMode(event.target.value as MailSettings['tlsMode'])}>
        {TLS_MODES.map((mode) => (
          <option key={mode.value} value={mode.value}>
            {mode.label}
          </option>
        ))}
      </select>
      <FieldError idPrefix={ID} field="tlsMode" problems={shown} />
      <label htmlFor={`${ID}-auth`}>Authentication</label>
      <select {...field('auth')} value={auth} onChange={(event) => setAuth(event.target.value as MailSettings['auth'])}>
        {AUTH_MODES.map((mode) => (
          <option key={mode.value} value={mode.value}>
            {mode.label}
          </option>
        ))}
      </select>
      <FieldError idPrefix={ID} field="auth" problems={shown} />
      <label htmlFor={`${ID}-username`}>User name</label>
      <input {...field('username')} value={username} autoComplete="off" onChange={(event) => setUsername(event.target.value)} />
      <FieldError idPrefix={ID} field="username" problems={shown} />
      <SecretField
        idPrefix={ID}
        field="password"
        label="Password"
        isSet={saved.passwordSet}
        value={password}
        clear={clearPassword}
        problems={shown}
        onChange={setPassword}
        onClearChange={setClearPassword}
      />
      <label htmlFor={`${ID}-fromAddress`}>From address</label>
      <input
        {...field('fromAddress')}
        type="email"
        value={fromAddress}
        autoComplete="off"
        onChange={(event) => setFromAddress(event.target.value)}
      />
      <FieldError idPrefix={ID} field="fromAddress" problems={shown} />
      <label htmlFor={`${ID}-fromName`}>From name</label>
      <input {...field('fromName')} value={fromName} autoComplete="off" onChange={(event) => setFromName(event.target.value)} />
      <FieldError idPrefix={ID} field="fromName" problems={shown} />
      <Checkbox
        id={`${ID}-allowInvalidCertificate`}
        label="Accept a self-signed server certificate (a private relay)"
        checked={allowInvalid}
        onChange={setAllowInvalid}
      />
      <FieldError idPrefix={ID} field="allowInvalidCertificate" problems={shown} />
      <GeneralProblem problems={shown} />
      <div className="actions">
        <button type="submit" className="primary" disabled={save.busy}>
          Save mail settings
        </button>
        <span role="status">{done ? 'Saved.' : ''}</span>
      </div>
    </form>
  );
}

const TEST_ID = 'mail-test';

/**
 * A test e-mail: 204 means the SMTP server accepted it; 422 and 502 come with the API's sentence.
 * A recipient that is no e-mail address is named before anything is sent.
 */
function TestMail() {
  const { me, session } = useAuth();
  const own = me?.email ?? session?.user.email ?? '';
  const [to, setTo] = useState('');
  const [sentTo, setSentTo] = useState<string | null>(null);
  const send = useAction();
  // What the form's own check found, until the next submit; otherwise the API's refusal.
  const [checked, setChecked] = useState<Problems<'to'> | null>(null);
  // The API's 400 starts with `to`; its 422 (mail off) and 502 (the relay refused) name no field.
  const problems = checked ?? (send.error ? splitProblems(send.error, ['to'] as const) : noProblems<'to'>());
  const hint = `${TEST_ID}-to-hint`;
  const field = fieldProps(TEST_ID, 'to', problems);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setSentTo(null);
    const found = checkedProblems({ to: check.email(to) });
    setChecked(found);
    if (found) {
      send.clearError();
      focusFirstProblem(TEST_ID, found, ['to']);
      return;
    }
    const recipient = to.trim();
    const ok = await send.run(() => api.POST('/api/v1/settings/mail/test', { body: recipient === '' ? {} : { to: recipient } }));
    if (ok) setSentTo(recipient === '' ? own : recipient);
  }

  return (
    <form className="card form" aria-labelledby="mail-test-heading" onSubmit={(event) => void submit(event)} noValidate>
      <h2 id="mail-test-heading">Send a test e-mail</h2>
      <label htmlFor={`${TEST_ID}-to`}>Recipient</label>
      <p className="muted hint" id={hint}>
        Empty: your own address{own ? ` (${own})` : ''}.
      </p>
      <input
        {...field}
        type="email"
        value={to}
        placeholder={own}
        autoComplete="email"
        aria-describedby={[hint, field['aria-describedby']].filter(Boolean).join(' ')}
        onChange={(event) => {
          setTo(event.target.value);
          setSentTo(null);
          send.clearError();
        }}
      />
      <FieldError idPrefix={TEST_ID} field="to" problems={problems} />
      <GeneralProblem problems={problems} />
      <div className="actions">
        <button type="submit" disabled={send.busy}>
          {send.busy ? 'Sending…' : 'Send a test e-mail'}
        </button>
        <span role="status">{sentTo !== null ? `Sent: the SMTP server accepted the test e-mail to ${sentTo}.` : ''}</span>
      </div>
    </form>
  );
}

/** The alert job, run now rather than at the next hour. */
function RunAlerts() {
  const [totals, setTotals] = useState<Schemas['AlertTotalsDto'] | null>(null);
  const run = useAction();
  return (
    <section className="card" aria-labelledby="alerts-run-heading">
      <h2 id="alerts-run-heading">Alerts</h2>
      <p className="muted">The alert job runs every hour; run it now to send what is due at once.</p>
      <div className="actions">
        <button
          type="button"
          disabled={run.busy}
          onClick={() => {
            setTotals(null);
            void run.run(() => api.POST('/api/v1/alerts/run'), setTotals);
          }}
        >
          {run.busy ? 'Running alerts…' : 'Run alerts now'}
        </button>
        <span role="status">{totals && alertRunSentence(totals)}</span>
      </div>
      <LoadError message={run.error} />
    </section>
  );
}
