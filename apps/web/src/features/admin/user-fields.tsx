import type { Schemas } from '../../api/client';
import * as check from '../../ui/field-checks';
import { FieldError, fieldProps, firstOf, splitProblems, type Problems } from '../../ui/form-problems';

export type UserRole = Schemas['UserResponseDto']['role'];
export const ROLES: readonly UserRole[] = ['viewer', 'operator', 'admin'];
export const ROLE_NAMES: Record<UserRole, string> = { viewer: 'Viewer', operator: 'Operator', admin: 'Administrator' };

export const USER_FIELDS = ['email', 'name', 'role', 'password', 'notify', 'disabled', 'revokeApiKeys'] as const;
export type UserField = (typeof USER_FIELDS)[number];

/**
 * The API's answer split by field. Its 409 for a taken address ("A user with this e-mail address
 * already exists.") names no field by its property name, so it is placed by the e-mail field too.
 */
export function userProblems(message: string | null): Problems<UserField> {
  const problems = splitProblems<UserField>(message ?? '', USER_FIELDS);
  if (problems.general && /e-mail address/i.test(problems.general)) {
    problems.byField.email = [problems.byField.email, problems.general].filter(Boolean).join(' ');
    problems.general = null;
  }
  return problems;
}

export interface IdentityValues {
  email: string;
  name: string;
  role: UserRole;
  notify: boolean;
}

/** What creating and editing a user check before sending: an e-mail address, a name of at most 200 characters, a password of at least 8 when one is given. */
export function userChecks(identity: IdentityValues, password: string): Partial<Record<UserField, string | null>> {
  return {
    email: firstOf(check.required(identity.email, 'the person’s e-mail address'), check.email(identity.email)),
    name: check.maxLength(identity.name, 200, 'the name'),
    password: password !== '' && password.length < 8 ? `The password is ${password.length} characters long: at least 8.` : null,
  };
}

/** E-mail, name, role and the alert e-mails switch: what creating and editing a user share. */
export function IdentityFields({
  idPrefix,
  values,
  problems,
  onChange,
}: {
  idPrefix: string;
  values: IdentityValues;
  problems: Problems<UserField>;
  onChange: (changes: Partial<IdentityValues>) => void;
}) {
  return (
    <>
      <label htmlFor={`${idPrefix}-email`}>E-mail</label>
      <input
        {...fieldProps(idPrefix, 'email', problems)}
        type="email"
        autoComplete="off"
        value={values.email}
        onChange={(event) => onChange({ email: event.target.value })}
      />
      <FieldError idPrefix={idPrefix} field="email" problems={problems} />
      <label htmlFor={`${idPrefix}-name`}>Name (optional)</label>
      <input
        {...fieldProps(idPrefix, 'name', problems)}
        autoComplete="off"
        maxLength={200}
        value={values.name}
        onChange={(event) => onChange({ name: event.target.value })}
      />
      <FieldError idPrefix={idPrefix} field="name" problems={problems} />
      <label htmlFor={`${idPrefix}-role`}>Role</label>
      <select
        {...fieldProps(idPrefix, 'role', problems)}
        value={values.role}
        onChange={(event) => onChange({ role: ROLES.find((role) => role === event.target.value) ?? values.role })}
      >
        {ROLES.map((role) => (
          <option key={role} value={role}>
            {ROLE_NAMES[role]}
          </option>
        ))}
      </select>
      <p className="muted small">
        Viewers read endpoints and certificates; operators also edit them, settings and discovery; administrators also manage scanners,
        users and the audit log.
      </p>
      <FieldError idPrefix={idPrefix} field="role" problems={problems} />
      <label className="inline">
        <input
          {...fieldProps(idPrefix, 'notify', problems)}
          type="checkbox"
          checked={values.notify}
          onChange={(event) => onChange({ notify: event.target.checked })}
        />
        Sends expiry alert e-mails to this user
      </label>
      <FieldError idPrefix={idPrefix} field="notify" problems={problems} />
    </>
  );
}
