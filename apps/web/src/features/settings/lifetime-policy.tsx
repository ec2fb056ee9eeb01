import { lifetimeThresholds } from '@certkeeper/domain/lifetime-thresholds';
import { useState, type FormEvent } from 'react';
import { api, type Schemas } from '../../api/client';
import { useAction } from '../../ui/use-action';

type AlertPolicy = Schemas['AlertPolicyDto'];
/** The most common lifetimes of the certificates in use (GET /certificates/lifetimes), most certificates first. */
export type LifetimesInUse = Schemas['LifetimeBucketDto'][];

// Shown while no certificate is in use: ACME's 6-day certificates, the 47 days public TLS reaches
// in 2029, today's 90-day ACME certificates and the 398-day maximum before 2026.
const EXAMPLE_LIFETIMES = [6, 47, 90, 398];

/** "alerts at 2 and 1 days", as the alert job would apply the thresholds to a certificate of that lifetime. */
export function alertDaysText(
  thresholds: readonly number[],
  lifetime: number,
  policy: Pick<AlertPolicy, 'lifetimeAware' | 'lifetimeFraction'>,
) {
  const days = policy.lifetimeAware ? lifetimeThresholds(thresholds, lifetime, policy.lifetimeFraction) : [...thresholds];
  const listed = days.length === 1 ? `${days[0]}` : `${days.slice(0, -1).join(', ')} and ${days[days.length - 1]}`;
  return `alerts at ${listed} ${days.length === 1 && days[0] === 1 ? 'day' : 'days'}`;
}

/**
 * When alerts fire under the policy being edited, for the lifetimes the inventory holds, or for a
 * few common ones while it holds none. A lifetime in use is whole days (rounded), so a certificate
 * at the edge of a day may have its alerts a day from what is shown.
 */
function LifetimeExamples({
  thresholds,
  policy,
  inUse,
}: {
  thresholds: readonly number[];
  policy: Pick<AlertPolicy, 'lifetimeAware' | 'lifetimeFraction'>;
  inUse: LifetimesInUse;
}) {
  if (inUse.length === 0) {
    return (
      <>
        <p className="muted small">No certificate is in use yet; for certificates of a few common lifetimes:</p>
        <ul className="lifetime-examples" aria-label="What this means for certificates of these lifetimes">
          {EXAMPLE_LIFETIMES.map((lifetime) => (
            <li key={lifetime}>
              {lifetime}-day certificates: {alertDaysText(thresholds, lifetime, policy)}
            </li>
          ))}
        </ul>
      </>
    );
  }
  return (
    <>
      <p className="muted small">For the lifetimes of the certificates in use, most common first:</p>
      <ul className="lifetime-examples" aria-label="What this means for the certificates in use">
        {inUse.map(({ days, certificates }) => (
          <li key={days}>
            {days}-day certificates ({certificates} in use): {alertDaysText(thresholds, days, policy)}
          </li>
        ))}
      </ul>
    </>
  );
}

/** Read-only: the policy as stored, with the examples. */
export function LifetimePolicyView({
  thresholds,
  policy,
  inUse,
}: {
  thresholds: readonly number[];
  policy: AlertPolicy;
  inUse: LifetimesInUse;
}) {
  return (
    <section className="card" aria-labelledby="lifetime-heading">
      <h2 id="lifetime-heading">Short-lived certificates</h2>
      <p>
        {policy.lifetimeAware
          ? `Thresholds fit each certificate's lifetime: none is larger than ${Math.round(policy.lifetimeFraction * 100)} % of it.`
          : 'Every certificate gets every threshold, whatever its lifetime.'}
      </p>
      <LifetimeExamples thresholds={thresholds} policy={policy} inUse={inUse} />
    </section>
  );
}

/**
 * The lifetime-aware switch and fraction (docs/api-contract.md section 15), with what they would
 * mean for the certificates in use as they are edited, before saving.
 */
export function LifetimePolicyForm({
  thresholds,
  saved,
  inUse,
  onSaved,
}: {
  thresholds: readonly number[];
  saved: AlertPolicy;
  inUse: LifetimesInUse;
  onSaved: (policy: AlertPolicy) => void;
}) {
  const [lifetimeAware, setLifetimeAware] = useState(saved.lifetimeAware);
  const [fractionText, setFractionText] = useState(String(Math.round(saved.lifetimeFraction * 100)));
  const [done, setDone] = useState(false);
  const save = useAction();
  const percent = Number(fractionText);
  const fractionProblem =
    fractionText.trim() === '' || !Number.isFinite(percent) || percent < 5 || percent > 90 ? 'Enter a percentage from 5 to 90.' : null;
  const [showProblem, setShowProblem] = useState(false);
  const problem = (showProblem ? fractionProblem : null) ?? save.error;
  const preview = { lifetimeAware, lifetimeFraction: fractionProblem ? saved.lifetimeFraction : percent / 100 };

  async function submit(event: FormEvent) {
    event.preventDefault();
    setDone(false);
    setShowProblem(true);
    if (fractionProblem) {
      document.getElementById('lifetime-fraction')?.focus();
      return;
    }
    const ok = await save.run(() => api.PUT('/api/v1/settings/alert-policy', { body: preview }), onSaved);
    setDone(ok);
  }

  return (
    <form className="card form" aria-labelledby="lifetime-heading" onSubmit={(event) => void submit(event)} noValidate>
      <h2 id="lifetime-heading">Short-lived certificates</h2>
      <label className="inline">
        <input
          id="lifetime-aware"
          type="checkbox"
          checked={lifetimeAware}
          aria-describedby="lifetime-aware-help"
          onChange={(event) => {
            setLifetimeAware(event.target.checked);
            setDone(false);
          }}
        />
        Fit thresholds to each certificate&apos;s lifetime
      </label>
      <p className="muted small" id="lifetime-aware-help">
        A threshold larger than the given share of a certificate&apos;s lifetime (notBefore to notAfter) is lowered to it, so a 6-day
        certificate is not reported as expiring the day it is issued. The expiring list, the dashboard and the calendar keep plain days.
      </p>
      <label htmlFor="lifetime-fraction">Largest threshold, as a percentage of the lifetime (5 to 90)</label>
      <input
        id="lifetime-fraction"
        inputMode="numeric"
        value={fractionText}
        disabled={!lifetimeAware}
        aria-invalid={problem ? true : undefined}
        aria-describedby={problem ? 'lifetime-error' : undefined}
        onChange={(event) => {
          setFractionText(event.target.value);
          setDone(false);
        }}
      />
      {problem && (
        <p className="error field-error" id="lifetime-error" role="alert">
          {problem}
        </p>
      )}
      <LifetimeExamples thresholds={thresholds} policy={preview} inUse={inUse} />
      <div className="actions">
        <button type="submit" className="primary" disabled={save.busy}>
          Save policy
        </button>
        <span role="status">{done ? 'Saved.' : ''}</span>
      </div>
    </form>
  );
}
