import { useTitle } from '../../ui/layout';

// Being built (issue 15): replaced by the real screen before it lands.
export function BulkImportPage() {
  useTitle('Import endpoints');
  return <h1>Import endpoints</h1>;
}
