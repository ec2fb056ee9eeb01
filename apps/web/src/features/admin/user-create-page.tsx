import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { api } from '../../api/client';
import { useAuth } from '../../auth/auth-context';
import { checkedProblems, FieldError, fieldProps, focusFirstProblem, GeneralProblem, type Problems } from '../../ui/form-problems';
import { useTitle } from '../../ui/layout';
import { useAction } from '../../ui/use-action';
import { IdentityFields, USER_FIELDS, userChecks, userProblems, type IdentityValues, type UserField } from './user-fields';
import type { UsersNotice } from './users-section';

const ID = 'new-user';

/** POST /users: a user with a password signs in with it; one without signs in only through OIDC. */
export function UserCreatePage() {
  useTitle('New user');
  const { can } = useAuth();
  const navigate = useNavigate();
  const [identity, setIdentity] = useState<IdentityValues>({ email: '', name: '', role: 'viewer', notify: true });
  const [password, setPassword] = useState('');
  const create = useAction();
  // What the form's own checks found, until the next submit; otherwise the API's refusal.
  const [checked, setChecked] = useState<Problems<UserField> | null>(null);
  const problems = checked ?? userProblems(create.error);

  if (!can('users:edit'))
    return (
      <>
        <h1>New user</h1>
        <p role="alert">Not allowed: only administrators add users.</p>
      </>
    );

  async function submit(event: FormEvent) {
    event.preventDefault();
    const found = checkedProblems<UserField>(userChecks(identity, password));
    setChecked(found);
    if (found) {
      create.clearError();
      focusFirstProblem(ID, found, USER_FIELDS);
      return;
    }
    const email = identity.email.trim();
    const body = {
      email,
      role: identity.role,
      notify: identity.notify,
      ...(identity.name.trim() === '' ? {} : { name: identity.name.trim() }),
      ...(password === '' ? {} : { password }),
    };
    await create.run(
      () => api.POST('/api/v1/users', { body }),
      (user) => void navigate('/users', { state: { notice: `User ${user.email} created.` } satisfies UsersNotice }),
    );
  }

  return (
    <>
      <p>
        <Link to="/users">Back to users</Link>
      </p>
      <h1>New user</h1>
      <form className="card form" aria-label="New user" onSubmit={(event) => void submit(event)} noValidate>
        <IdentityFields
          idPrefix={ID}
          values={identity}
          problems={problems}
          onChange={(changes) => setIdentity({ ...identity, ...changes })}
        />
        <label htmlFor={`${ID}-password`}>Password (at least 8 characters)</label>
        <input
          {...fieldProps(ID, 'password', problems)}
          type="password"
          autoComplete="new-password"
          value={password}
          onChange={(event) => setPassword(event.target.value)}
        />
        <p className="muted small">Leave it empty for a user who signs in only through OIDC.</p>
        <FieldError idPrefix={ID} field="password" problems={problems} />
        <GeneralProblem problems={problems} />
        <div className="actions">
          <button type="submit" className="primary" disabled={create.busy}>
            Create user
          </button>
          <Link to="/users">Cancel</Link>
        </div>
      </form>
    </>
  );
}
