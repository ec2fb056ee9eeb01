import { useTitle } from '../../ui/layout';

// Being built (issue 15): replaced by the real screen before it lands.
export function SettingsSection() {
  useTitle('Settings');
  return <h1>Settings</h1>;
}
