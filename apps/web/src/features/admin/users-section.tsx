import { Link, Route, Routes, useLocation } from 'react-router';
import { api } from '../../api/client';
import { useAuth } from '../../auth/auth-context';
import { DateTime } from '../../ui/expiry';
import { LoadError, useTitle } from '../../ui/layout';
import { useApiQuery } from '../../ui/use-api-query';
import { RequirePermission } from './not-allowed';
import { UserCreatePage } from './user-create-page';
import { UserEditPage } from './user-edit-page';
import { ROLE_NAMES } from './user-fields';
import './admin.css';
import '../../ui/card-table.css';

/** Users (admin): the list, a new user, and one user's edit screen. */
export function UsersSection() {
  return (
    <RequirePermission permission="users:view" title="Users">
      <Routes>
        <Route index element={<UserListPage />} />
        <Route path="new" element={<UserCreatePage />} />
        <Route path=":id" element={<UserEditPage />} />
      </Routes>
    </RequirePermission>
  );
}

/** What a screen that changed a user tells the list to announce (navigation state). */
export interface UsersNotice {
  notice?: string;
}

/** Every user, by e-mail address (GET /users is a bare array: user counts stay small). */
function UserListPage() {
  useTitle('Users');
  const { can, me, session } = useAuth();
  const myId = me?.id ?? session?.user.id;
  const mayEdit = can('users:edit');
  const users = useApiQuery('users', () => api.GET('/api/v1/users'));
  const notice = (useLocation().state as UsersNotice | null)?.notice;

  return (
    <>
      <div className="title-row">
        <h1>Users</h1>
        {mayEdit && (
          <Link className="button primary" to="/users/new">
            Add user
          </Link>
        )}
      </div>
      <p role="status">{notice}</p>
      <LoadError message={users.error} />
      {users.data && (
        <div className="table-scroll">
          <table className="users card-table">
            <caption className="visually-hidden">Users</caption>
            <thead>
              <tr>
                <th scope="col">E-mail</th>
                <th scope="col">Name</th>
                <th scope="col">Role</th>
                <th scope="col">State</th>
                <th scope="col">Signs in with</th>
                <th scope="col">Last sign-in</th>
                <th scope="col">Alert e-mails</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {users.data.map((user) => (
                <tr key={user.id}>
                  <td className="card-title">
                    {mayEdit ? <Link to={`/users/${user.id}`}>{user.email}</Link> : user.email}
                    {user.id === myId && <span className="muted"> (you)</span>}
                  </td>
                  <td data-label="Name">{user.name || <span className="muted">none</span>}</td>
                  <td data-label="Role">{ROLE_NAMES[user.role]}</td>
                  <td data-label="State">{user.disabled ? <span className="user-disabled">Disabled</span> : 'Enabled'}</td>
                  <td data-label="Signs in with">{signInMethods(user)}</td>
                  <td data-label="Last sign-in">
                    <DateTime value={user.lastSignInAt} />
                  </td>
                  <td data-label="Alert e-mails">{user.notify ? 'yes' : <span className="muted">no</span>}</td>
                  <td data-label="Created">
                    <DateTime value={user.createdAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

/** How a user can sign in: a user without a password who never signed in through OIDC can only do that next. */
function signInMethods(user: { localSignIn: boolean; oidcLinked: boolean }) {
  const methods = [user.localSignIn && 'password', user.oidcLinked && 'OIDC'].filter(Boolean).join(', ');
  return methods || <span className="muted">OIDC, not signed in yet</span>;
}
