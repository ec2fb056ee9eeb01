import { useState, type FormEvent } from 'react';
import { api, type Role, type Schemas } from '../../api/client';
import { useAuth } from '../../auth/auth-context';
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
import { LoadError, useTitle } from '../../ui/layout';
import { useAction } from '../../ui/use-action';
import { useApiQuery } from '../../ui/use-api-query';
import { Checkbox, SecretField, secretToSend } from './secret-field';
import { ReadOnlyNote } from './settings-section';
import { FactsSection } from '../../ui/facts';
import { splitList } from '../../ui/comma-list';
import { orNull } from './form-values';

type OidcSettings = Schemas['OidcSettingsResponseDto'];
type OidcUpdate = Schemas['UpdateOidcSettingsDto'];
const FIELDS = [
  'enabled',
  'issuerUrl',
  'clientId',
  'clientSecret',
  'scopes',
  'emailClaim',
  'nameClaim',
  'roleClaim',
  'roleMapping',
  'defaultRole',
  'buttonLabel',
] as const;
type Field = (typeof FIELDS)[number];
const ROLES: Role[] = ['admin', 'operator', 'viewer'];
const ID = 'oidc';

/** Sign-in through an OpenID Connect provider (docs/api-contract.md section 9). */
export function OidcPage() {
  useTitle('Sign-in (OIDC)');
  const { can } = useAuth();
  const oidc = useApiQuery('oidc-settings', () => api.GET('/api/v1/settings/oidc'));
  return (
    <>
      <h1>Sign-in with OpenID Connect</h1>
      <p className="muted">
        When enabled, the sign-in page offers a button to the provider; users are found by subject or verified e-mail, else created with the
        mapped role.
      </p>
      <LoadError message={oidc.error} />
      {oidc.data &&
        (can('settings:edit') ? (
          <OidcForm initial={oidc.data} />
        ) : (
          <>
            <OidcFacts oidc={oidc.data} />
            <ReadOnlyNote />
          </>
        ))}
    </>
  );
}

function OidcFacts({ oidc }: { oidc: OidcSettings }) {
  const rows: [string, string][] = [
    ['Sign-in with OIDC', oidc.enabled ? 'enabled' : 'disabled'],
    ['Issuer URL', oidc.issuerUrl ?? '—'],
    ['Client id', oidc.clientId ?? '—'],
    ['Client secret', oidc.clientSecretSet ? 'a secret is set' : 'none (public client)'],
    ['Scopes', oidc.scopes],
    ['E-mail claim', oidc.emailClaim],
    ['Name claim', oidc.nameClaim],
    ['Role claim', oidc.roleClaim ?? 'none: roles are not taken from the provider'],
    ...ROLES.map((role): [string, string] => [`Claim values giving ${role}`, oidc.roleMapping[role].join(', ') || '—']),
    ['Default role', oidc.defaultRole ?? 'none: unmapped users are refused'],
    ['Button label', oidc.buttonLabel],
  ];
  return <FactsSection id="oidc-facts-heading" heading="Provider" rows={rows} />;
}

function OidcForm({ initial }: { initial: OidcSettings }) {
  // What the server holds, from the load and then from each save's answer.
  const [saved, setSaved] = useState(initial);
  const [enabled, setEnabled] = useState(initial.enabled);
  const [issuerUrl, setIssuerUrl] = useState(initial.issuerUrl ?? '');
  const [clientId, setClientId] = useState(initial.clientId ?? '');
  const [clientSecret, setClientSecret] = useState('');
  const [clearSecret, setClearSecret] = useState(false);
  const [scopes, setScopes] = useState(initial.scopes);
  const [emailClaim, setEmailClaim] = useState(initial.emailClaim);
  const [nameClaim, setNameClaim] = useState(initial.nameClaim);
  const [roleClaim, setRoleClaim] = useState(initial.roleClaim ?? '');
  const [mapping, setMapping] = useState<Record<Role, string>>({
    admin: initial.roleMapping.admin.join(', '),
    operator: initial.roleMapping.operator.join(', '),
    viewer: initial.roleMapping.viewer.join(', '),
  });
  const [defaultRole, setDefaultRole] = useState<Role | ''>(initial.defaultRole ?? '');
  const [buttonLabel, setButtonLabel] = useState(initial.buttonLabel);
  const [done, setDone] = useState(false);
  const save = useAction();
  // What the form's own checks found, until the next submit; otherwise the API's refusal.
  const [checked, setChecked] = useState<Problems<Field> | null>(null);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setDone(false);
    // Enabling needs a provider to talk to; the API then checks it by reading its discovery document.
    const found = checkedProblems<Field>({
      issuerUrl: firstOf(enabled ? check.required(issuerUrl, 'the issuer URL to enable sign-in') : null, check.httpUrl(issuerUrl)),
      clientId: enabled ? check.required(clientId, 'the client id to enable sign-in') : null,
      scopes: scopes.trim().split(/\s+/).includes('openid') ? null : 'The scopes include openid, such as “openid email profile”.',
    });
    setChecked(found);
    if (found) {
      save.clearError();
      focusFirstProblem(ID, found, FIELDS);
      return;
    }
    const body: OidcUpdate = {
      enabled,
      issuerUrl: orNull(issuerUrl),
      clientId: orNull(clientId),
      clientSecret: secretToSend(clientSecret, clearSecret),
      scopes: scopes.trim(),
      emailClaim: emailClaim.trim(),
      nameClaim: nameClaim.trim(),
      roleClaim: orNull(roleClaim),
      roleMapping: { admin: splitList(mapping.admin), operator: splitList(mapping.operator), viewer: splitList(mapping.viewer) },
      defaultRole: defaultRole === '' ? null : defaultRole,
      buttonLabel: buttonLabel.trim(),
    };
    const ok = await save.run(
      () => api.PUT('/api/v1/settings/oidc', { body }),
      (stored) => {
        setSaved(stored);
        setClientSecret('');
        setClearSecret(false);
      },
    );
    setDone(ok);
  }

  const shown: Problems<Field> = checked ?? (save.error ? splitProblems(save.error, FIELDS) : noProblems());
  const text = (field: Field, label: string, value: string, onChange: (value: string) => void, hint?: string) => {
    const props = fieldProps(ID, field, shown);
    const hintId = `${ID}-${field}-hint`;
    return (
      <>
        <label htmlFor={props.id}>{label}</label>
        {hint && (
          <p className="muted hint" id={hintId}>
            {hint}
          </p>
        )}
        <input
          {...props}
          aria-describedby={[hint ? hintId : '', props['aria-describedby'] ?? ''].filter(Boolean).join(' ') || undefined}
          value={value}
          autoComplete="off"
          onChange={(event) => onChange(event.target.value)}
        />
        <FieldError idPrefix={ID} field={field} problems={shown} />
      </>
    );
  };
  return (
    <form className="card form" aria-labelledby="oidc-heading" onSubmit={(event) => void submit(event)} noValidate>
      <h2 id="oidc-heading">Provider</h2>
      <Checkbox id={`${ID}-enabled`} label="Offer sign-in with this provider" checked={enabled} onChange={setEnabled} />
      <FieldError idPrefix={ID} field="enabled" problems={shown} />
      {text('issuerUrl', 'Issuer URL', issuerUrl, setIssuerUrl, 'https, or http on a loopback host; checked when enabling.')}
      {text('clientId', 'Client id', clientId, setClientId)}
      <SecretField
        idPrefix={ID}
        field="clientSecret"
        label="Client secret"
        isSet={saved.clientSecretSet}
        value={clientSecret}
        clear={clearSecret}
        problems={shown}
        onChange={setClientSecret}
        onClearChange={setClearSecret}
      />
      {text('scopes', 'Scopes (separated by spaces, with openid)', scopes, setScopes)}
      {text('emailClaim', 'E-mail claim', emailClaim, setEmailClaim)}
      {text('nameClaim', 'Name claim', nameClaim, setNameClaim)}
      {text(
        'roleClaim',
        'Role claim',
        roleClaim,
        setRoleClaim,
        'Such as groups or realm_access.roles; empty: roles are not taken from the provider.',
      )}
      <fieldset>
        <legend>Role mapping: claim values giving each role, separated by commas</legend>
        {ROLES.map((role) => (
          <div className="field" key={role}>
            <label htmlFor={`${ID}-roleMapping-${role}`}>Values giving {role}</label>
            <input
              id={`${ID}-roleMapping-${role}`}
              value={mapping[role]}
              autoComplete="off"
              onChange={(event) => setMapping({ ...mapping, [role]: event.target.value })}
            />
          </div>
        ))}
        <FieldError idPrefix={ID} field="roleMapping" problems={shown} />
      </fieldset>
      <label htmlFor={`${ID}-defaultRole`}>Default role (users no mapping applies to)</label>
      <select
        {...fieldProps(ID, 'defaultRole', shown)}
        value={defaultRole}
        onChange={(event) => setDefaultRole(event.target.value as Role | '')}
      >
        <option value="">None: refuse them</option>
        {ROLES.map((role) => (
          <option key={role} value={role}>
            {role}
          </option>
        ))}
      </select>
      <FieldError idPrefix={ID} field="defaultRole" problems={shown} />
      {text('buttonLabel', 'Sign-in button label', buttonLabel, setButtonLabel)}
      <GeneralProblem problems={shown} />
      <div className="actions">
        <button type="submit" className="primary" disabled={save.busy}>
          Save sign-in settings
        </button>
        <span role="status">{done ? 'Saved.' : ''}</span>
      </div>
    </form>
  );
}
