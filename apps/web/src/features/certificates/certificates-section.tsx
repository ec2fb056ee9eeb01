import { useTitle } from '../../ui/layout';

// Being built (issue 15): replaced by the real screen before it lands.
export function CertificatesSection() {
  useTitle('Certificates');
  return <h1>Certificates</h1>;
}
