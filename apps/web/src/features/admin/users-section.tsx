import { useTitle } from '../../ui/layout';

// Being built (issue 15): replaced by the real screen before it lands.
export function UsersSection() {
  useTitle('Users');
  return <h1>Users</h1>;
}
