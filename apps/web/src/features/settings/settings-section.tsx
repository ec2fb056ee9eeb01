import { NavLink, Route, Routes } from 'react-router';
import { useAuth } from '../../auth/auth-context';
import { useTitle } from '../../ui/layout';
import { AcmeCasPage } from './acme-cas-page';
import { ChannelsPage } from './channels-page';
import { MailPage } from './mail-page';
import { MaintenancePage } from './maintenance-page';
import { OidcPage } from './oidc-page';
import { RootStoresPage } from './root-stores-page';
import { TemplatesPage } from './templates-page';
import { ThresholdsPage } from './thresholds-page';
import './settings.css';

const TABS = [
  { to: '/settings', label: 'Thresholds', end: true },
  { to: '/settings/mail', label: 'Mail' },
  { to: '/settings/channels', label: 'Channels' },
  { to: '/settings/templates', label: 'Templates' },
  { to: '/settings/oidc', label: 'Sign-in (OIDC)' },
  { to: '/settings/root-stores', label: 'Root stores' },
  { to: '/settings/acme-cas', label: 'ACME CAs' },
  { to: '/settings/maintenance', label: 'Maintenance' },
];

/**
 * Settings (settings:view, operators and admins, who read the values; settings:edit, admins, who
 * change them). A viewer reaching the address is told why nothing is shown.
 */
export function SettingsSection() {
  const { can } = useAuth();
  if (!can('settings:view')) return <NoSettings />;
  return (
    <div className="settings">
      <nav className="settings-tabs" aria-label="Settings">
        <ul>
          {TABS.map((tab) => (
            <li key={tab.to}>
              <NavLink to={tab.to} end={tab.end}>
                {tab.label}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <Routes>
        <Route index element={<ThresholdsPage />} />
        <Route path="mail" element={<MailPage />} />
        <Route path="channels" element={<ChannelsPage />} />
        <Route path="templates" element={<TemplatesPage />} />
        <Route path="oidc" element={<OidcPage />} />
        <Route path="root-stores" element={<RootStoresPage />} />
        <Route path="acme-cas" element={<AcmeCasPage />} />
        <Route path="maintenance" element={<MaintenancePage />} />
        <Route path="*" element={<NoSuchScreen />} />
      </Routes>
    </div>
  );
}

function NoSettings() {
  useTitle('Settings');
  return (
    <>
      <h1>Settings</h1>
      <p role="alert">Your role does not include the settings: ask an administrator for the operator role to read them.</p>
    </>
  );
}

function NoSuchScreen() {
  useTitle('Settings');
  return (
    <>
      <h1>Settings</h1>
      <p role="alert">There is no such settings screen; pick one above.</p>
    </>
  );
}

/** Shown to operators on each screen: why there is nothing to change. */
export function ReadOnlyNote() {
  return <p className="muted">Your role reads these settings; an administrator changes them.</p>;
}
