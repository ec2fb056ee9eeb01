import { NavLink, Route, Routes } from 'react-router';
import { useAuth } from '../../auth/auth-context';
import { useTitle } from '../../ui/layout';
import { InboxPage } from './inbox-page';
import { NetworkDetailPage } from './network-detail-page';
import { NetworksPage } from './networks-page';
import './discovery.css';

/**
 * Discovery (discovery:view, operators and admins): the networks, each with its sweeps, and the
 * inbox of what the sweeps found. A viewer reaching the address is told why nothing is shown.
 */
export function DiscoverySection() {
  const { can } = useAuth();
  if (!can('discovery:view')) return <NoDiscovery />;
  return (
    <>
      <nav className="discovery-tabs" aria-label="Discovery">
        <ul>
          <li>
            <NavLink to="/discovery" end>
              Networks
            </NavLink>
          </li>
          <li>
            <NavLink to="/discovery/inbox">Inbox</NavLink>
          </li>
        </ul>
      </nav>
      <Routes>
        <Route index element={<NetworksPage />} />
        <Route path="networks/:id" element={<NetworkDetailPage />} />
        <Route path="inbox" element={<InboxPage />} />
        <Route path="*" element={<NoSuchScreen />} />
      </Routes>
    </>
  );
}

function NoDiscovery() {
  useTitle('Discovery');
  return (
    <>
      <h1>Discovery</h1>
      <p role="alert">Your role does not include discovery: ask an administrator for the operator role to see networks and sweeps.</p>
    </>
  );
}

function NoSuchScreen() {
  useTitle('Not found');
  return (
    <>
      <h1>Not found</h1>
      <p>There is no discovery screen at this address.</p>
    </>
  );
}
