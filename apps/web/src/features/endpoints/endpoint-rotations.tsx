import { Link } from 'react-router';
import { api, type Schemas } from '../../api/client';
import { DateTime } from '../../ui/expiry';
import { LoadError } from '../../ui/layout';
import { useApiQuery } from '../../ui/use-api-query';

type Rotation = Schemas['RotationDto'];
type Change = Schemas['RotationChangeDto'];

/** The latest rotations shown; the API pages the rest. */
const ROTATIONS_SHOWN = 50;

const FIELD_NAMES: Record<Change['field'], string> = {
  issuer: 'Issuer',
  trustedBy: 'Trusted by',
  chainComplete: 'Chain presented complete',
  keyAlgorithm: 'Key algorithm',
  keySize: 'Key size',
  signatureAlgorithm: 'Signature algorithm',
  sans: 'Names (SANs)',
  extendedKeyUsage: 'Extended key usage',
  lifetimeDays: 'Lifetime (days)',
};

function valueText(value: Change['from']): string {
  if (value === null) return 'unknown';
  if (Array.isArray(value)) return value.length === 0 ? 'none' : value.join(', ');
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return String(value);
}

function Fingerprint({ value }: { value: string }) {
  return (
    <Link className="mono" to={`/certificates/${value}`} title={`SHA-256 fingerprint ${value}`}>
      {value.slice(0, 16)}…
    </Link>
  );
}

/**
 * GET /endpoints/{id}/rotations as a timeline, newest first: each replacement with what changed,
 * the regressions marked by the word "Regression" and an icon as well as by colour.
 */
export function RotationTimeline({ endpointId, refreshKey }: { endpointId: string; refreshKey: string }) {
  const rotations = useApiQuery(`rotations:${endpointId}:${refreshKey}`, () =>
    api.GET('/api/v1/endpoints/{id}/rotations', { params: { path: { id: endpointId }, query: { limit: ROTATIONS_SHOWN } } }),
  );
  const total = Number(rotations.response?.headers.get('X-Total-Count') ?? 0);
  const rows = rotations.data ?? [];
  return (
    <section aria-labelledby="rotations-heading">
      <h2 id="rotations-heading">Rotations</h2>
      <LoadError message={rotations.error} />
      {rotations.data && rows.length === 0 && (
        <p className="muted">No rotation yet: the certificate has not been replaced since it was first seen.</p>
      )}
      {rows.length > 0 && (
        <>
          {total > rows.length && (
            <p className="muted">
              The latest {rows.length} of {total} rotations.
            </p>
          )}
          <ol className="rotation-timeline">
            {rows.map((rotation) => (
              <RotationEntry key={rotation.id} rotation={rotation} />
            ))}
          </ol>
        </>
      )}
    </section>
  );
}

function RotationEntry({ rotation }: { rotation: Rotation }) {
  const regressed = new Set<string>(rotation.regressions);
  return (
    <li className={regressed.size > 0 ? 'rotation regressed' : 'rotation'}>
      <p>
        <DateTime value={rotation.at} /> · {rotation.certUse}: <Fingerprint value={rotation.fromFingerprint} /> replaced by{' '}
        <Fingerprint value={rotation.toFingerprint} />
      </p>
      {regressed.size > 0 ? (
        <p className="urgency urgency-critical">
          <span aria-hidden="true">⚠</span> {regressed.size === 1 ? '1 regression' : `${regressed.size} regressions`}
        </p>
      ) : (
        <p className="muted">No regression.</p>
      )}
      {rotation.changes.length === 0 && !regressed.has('rollback') ? (
        <p className="muted">No compared field changed.</p>
      ) : (
        <ul className="rotation-changes">
          {rotation.changes.map((change) => (
            <li key={change.field} className={regressed.has(change.field) ? 'regression' : undefined}>
              {regressed.has(change.field) && <strong>Regression: </strong>}
              {FIELD_NAMES[change.field]}: {valueText(change.from)} → {valueText(change.to)}
            </li>
          ))}
          {regressed.has('rollback') && (
            <li className="regression">
              <strong>Regression: </strong>rollback (the new certificate was issued before the one it replaced)
            </li>
          )}
        </ul>
      )}
    </li>
  );
}
