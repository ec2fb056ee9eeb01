import { Link } from 'react-router';
import type { Schemas } from '../api/client';
import { DateTime } from './expiry';

/**
 * A stored renewal not deployed in a current certificate's place (docs/api-contract.md section 16),
 * said in words with an icon (never by colour alone) and linked to the renewal.
 */
export function RenewalNotDeployed({ renewal }: { renewal: NonNullable<Schemas['CurrentCertificateDto']['supersededBy']> }) {
  return (
    <p className="small">
      <span className="urgency urgency-warning">
        <span aria-hidden="true">⚠</span> Renewal not deployed:
      </span>{' '}
      <Link className="mono" to={`/certificates/${renewal.fingerprint}`} title={`SHA-256 fingerprint ${renewal.fingerprint}`}>
        {renewal.fingerprint.slice(0, 16)}…
      </Link>
      , issued <DateTime value={renewal.notBefore} />, stored <DateTime value={renewal.firstSeenAt} />
    </p>
  );
}
