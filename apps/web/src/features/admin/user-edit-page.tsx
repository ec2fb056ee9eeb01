import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, type Schemas } from '../../api/client';
import { useAuth } from '../../auth/auth-context';
import { DateTime } from '../../ui/expiry';
import { checkedProblems, FieldError, fieldProps, focusFirstProblem, GeneralProblem, type Problems } from '../../ui/form-problems';
import { LoadError, useTitle } from '../../ui/layout';
import { ConfirmAction } from '../../ui/shown-once';
import { useAction } from '../../ui/use-action';
import { useApiQuery } from '../../ui/use-api-query';
import { IdentityFields, USER_FIELDS, userChecks, userProblems, type IdentityValues, type UserField } from './user-fields';
import type { UsersNotice } from './users-section';

type User = Schemas['UserResponseDto'];
type UserChanges = Schemas['UpdateUserDto'];

const ID = 'edit-user';

/** One user: GET, PUT and DELETE /users/{id}. */
export function UserEditPage() {
  const { id = '' } = useParams();
  const { can, me, session } = useAuth();
  const user = useApiQuery(`user:${id}`, () => api.GET('/api/v1/users/{id}', { params: { path: { id } } }));
  const [saved, setSaved] = useState<string | null>(null);
  useTitle(user.data ? `User ${user.data.email}` : 'User');
  const isSelf = id === (me?.id ?? session?.user.id);

  return (
    <>
      <p>
        <Link to="/users">Back to users</Link>
      </p>
      <h1>{user.data ? `User ${user.data.email}` : 'User'}</h1>
      <LoadError message={user.error} />
      {user.data && (
        <>
          <p className="muted">
            Created <DateTime value={user.data.createdAt} />
            {isSelf && '. This is your own account.'}
          </p>
          {can('users:edit') ? (
            <>
              <UserForm
                // A fresh form after each save: the fields show what the API now holds, the password empty.
                key={JSON.stringify(user.data)}
                user={user.data}
                isSelf={isSelf}
                onSaved={(message) => {
                  setSaved(message);
                  user.reload();
                }}
                onEdit={() => setSaved(null)}
              />
              <p role="status">{saved}</p>
              <DeleteUser user={user.data} isSelf={isSelf} />
            </>
          ) : (
            <p>Role: {user.data.role}</p>
          )}
        </>
      )}
    </>
  );
}

function UserForm({
  user,
  isSelf,
  onSaved,
  onEdit,
}: {
  user: User;
  isSelf: boolean;
  onSaved: (message: string) => void;
  onEdit: () => void;
}) {
  const [identity, setIdentity] = useState<IdentityValues>({ email: user.email, name: user.name, role: user.role, notify: user.notify });
  const [enabled, setEnabled] = useState(!user.disabled);
  const [password, setPassword] = useState('');
  const [revokeApiKeys, setRevokeApiKeys] = useState(false);
  const save = useAction();
  // What the form's own checks found, until the next submit; otherwise the API's refusal.
  const [checked, setChecked] = useState<Problems<UserField> | null>(null);
  const problems = checked ?? userProblems(save.error);

  /** Only what changed is sent: the audit entry then names exactly what the admin changed. */
  function changes(): UserChanges {
    const body: UserChanges = {};
    if (identity.email.trim() !== user.email) body.email = identity.email.trim();
    if (identity.name.trim() !== user.name) body.name = identity.name.trim();
    if (identity.role !== user.role) body.role = identity.role;
    if (identity.notify !== user.notify) body.notify = identity.notify;
    if (enabled === user.disabled) body.disabled = !enabled;
    if (password !== '') body.password = password;
    if (revokeApiKeys) body.revokeApiKeys = true;
    return body;
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    const found = checkedProblems<UserField>(userChecks(identity, password));
    setChecked(found);
    if (found) {
      save.clearError();
      focusFirstProblem(ID, found, USER_FIELDS);
      return;
    }
    const body = changes();
    if (Object.keys(body).length === 0) {
      onSaved('Nothing to save: no field changed.');
      return;
    }
    const endsSessions = body.password !== undefined || body.disabled === true;
    await save.run(
      () => api.PUT('/api/v1/users/{id}', { params: { path: { id: user.id } }, body }),
      () =>
        onSaved(
          ['Saved.', endsSessions ? 'Their signed-in sessions have ended.' : '', body.revokeApiKeys ? 'Their API keys are deleted.' : '']
            .filter(Boolean)
            .join(' '),
        ),
    );
  }

  const edit =
    <T,>(set: (value: T) => void) =>
    (value: T) => {
      set(value);
      onEdit();
    };

  return (
    <form className="card form" aria-label="Edit user" onSubmit={(event) => void submit(event)} noValidate>
      <h2>Account</h2>
      <IdentityFields
        idPrefix={ID}
        values={identity}
        problems={problems}
        onChange={edit((changed: Partial<IdentityValues>) => setIdentity({ ...identity, ...changed }))}
      />
      <label className="inline">
        <input
          {...fieldProps(ID, 'disabled', problems)}
          type="checkbox"
          checked={enabled}
          onChange={(event) => edit(setEnabled)(event.target.checked)}
        />
        Enabled (may sign in)
      </label>
      <FieldError idPrefix={ID} field="disabled" problems={problems} />
      <h2>Password</h2>
      <label htmlFor={`${ID}-password`}>New password (at least 8 characters; empty keeps the current one)</label>
      <input
        {...fieldProps(ID, 'password', problems)}
        type="password"
        autoComplete="new-password"
        value={password}
        onChange={(event) => edit(setPassword)(event.target.value)}
      />
      <FieldError idPrefix={ID} field="password" problems={problems} />
      <label className="inline">
        <input
          {...fieldProps(ID, 'revokeApiKeys', problems)}
          type="checkbox"
          checked={revokeApiKeys}
          onChange={(event) => edit(setRevokeApiKeys)(event.target.checked)}
        />
        Also delete their API keys
      </label>
      <FieldError idPrefix={ID} field="revokeApiKeys" problems={problems} />
      <p className="muted small" id={`${ID}-sessions`}>
        A new password or disabling the account ends every signed-in session of this user at once. Disabling also stops their API keys;
        after a new password their API keys keep working unless you delete them here (for a compromised account).
        {isSelf && ' This is your own account: a new password or disabling it signs you out here too.'}
      </p>
      <GeneralProblem problems={problems} />
      <div className="actions">
        <button type="submit" className="primary" disabled={save.busy} aria-describedby={`${ID}-sessions`}>
          Save user
        </button>
      </div>
    </form>
  );
}

/** Delete after confirming; the API refuses the last enabled administrator and its sentence shows here. */
function DeleteUser({ user, isSelf }: { user: User; isSelf: boolean }) {
  const navigate = useNavigate();
  const remove = useAction();
  const [confirming, setConfirming] = useState(false);
  return (
    <section className="danger-zone" aria-labelledby="delete-user-heading">
      <h2 id="delete-user-heading">Delete</h2>
      <div className="actions">
        <ConfirmAction
          label="Delete user"
          accessibleLabel={`Delete user ${user.email}`}
          question={
            isSelf
              ? 'This is your own account: deleting it signs you out for good. Delete it with its API keys?'
              : 'Delete this user with their API keys and sessions? This cannot be undone.'
          }
          confirmLabel={`Yes, delete ${user.email}`}
          confirming={confirming}
          busy={remove.busy}
          onAsk={() => {
            setConfirming(true);
            remove.clearError();
          }}
          onCancel={() => setConfirming(false)}
          onConfirm={() =>
            void remove.run(
              () => api.DELETE('/api/v1/users/{id}', { params: { path: { id: user.id } } }),
              () => void navigate('/users', { state: { notice: `User ${user.email} deleted.` } satisfies UsersNotice }),
            )
          }
        />
      </div>
      <LoadError message={remove.error} />
    </section>
  );
}
