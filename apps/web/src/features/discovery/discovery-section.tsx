import { useTitle } from '../../ui/layout';

// Being built (issue 15): replaced by the real screen before it lands.
export function DiscoverySection() {
  useTitle('Discovery');
  return <h1>Discovery</h1>;
}
