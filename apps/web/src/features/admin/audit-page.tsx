import { useTitle } from '../../ui/layout';

// Being built (issue 15): replaced by the real screen before it lands.
export function AuditPage() {
  useTitle('Audit log');
  return <h1>Audit log</h1>;
}
