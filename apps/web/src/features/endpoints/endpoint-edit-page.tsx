import { useTitle } from '../../ui/layout';

// Being built (issue 15): replaced by the real screen before it lands.
export function EndpointEditPage() {
  useTitle('Edit endpoint');
  return <h1>Edit endpoint</h1>;
}
