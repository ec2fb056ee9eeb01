import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { useAuth } from '../../auth/auth-context';
import { thresholdDays } from '../../ui/field-checks';
import { LoadError, useTitle } from '../../ui/layout';
import { useReplaceThresholds } from '../../ui/thresholds';
import { useAction } from '../../ui/use-action';
import { useApiQuery } from '../../ui/use-api-query';
import { LifetimePolicyForm, LifetimePolicyView } from './lifetime-policy';
import { ReadOnlyNote } from './settings-section';

/** The alert thresholds: the days before expiry at which alerts go out, and the expiry colours. */
export function ThresholdsPage() {
  useTitle('Alert thresholds');
  const { can } = useAuth();
  const thresholds = useApiQuery('alert-thresholds', () => api.GET('/api/v1/settings/alert-thresholds'));
  const policy = useApiQuery('alert-policy', () => api.GET('/api/v1/settings/alert-policy'));
  // The policy applies to every certificate, so its examples are the whole inventory's lifetimes, whatever the caller subscribes to.
  const lifetimes = useApiQuery('certificate-lifetimes', () =>
    api.GET('/api/v1/certificates/lifetimes', { params: { query: { scope: 'all' } } }),
  );
  const inUse = lifetimes.data?.lifetimes ?? [];
  return (
    <>
      <h1>Alert thresholds</h1>
      <p className="muted">
        Alerts go out when a certificate&apos;s days remaining reach one of these; the smallest ones also colour the expiry figures.
      </p>
      <LoadError message={thresholds.error} />
      {thresholds.data &&
        (can('settings:edit') ? (
          <ThresholdsForm saved={thresholds.data} />
        ) : (
          <>
            <p>
              Days before expiry: <strong>{thresholds.data.join(', ')}</strong>
            </p>
            <ReadOnlyNote />
          </>
        ))}
      <LoadError message={policy.error} />
      <LoadError message={lifetimes.error} />
      {thresholds.data &&
        policy.data &&
        !lifetimes.loading &&
        (can('settings:edit') ? (
          <LifetimePolicyForm thresholds={thresholds.data} saved={policy.data} inUse={inUse} onSaved={() => policy.reload()} />
        ) : (
          <LifetimePolicyView thresholds={thresholds.data} policy={policy.data} inUse={inUse} />
        ))}
    </>
  );
}

/** Numbers separated by commas or spaces, once thresholdDays has found each a whole number. */
function parseDays(text: string): number[] {
  return text
    .split(/[\s,;]+/)
    .filter((part) => part !== '')
    .map(Number);
}

function ThresholdsForm({ saved }: { saved: number[] }) {
  const [text, setText] = useState(saved.join(', '));
  const [done, setDone] = useState(false);
  const save = useAction();
  const replaceThresholds = useReplaceThresholds();
  // The form's own check of the list, until the next submit; otherwise the API's refusal.
  const [checked, setChecked] = useState<string | null>(null);
  const problem = checked ?? save.error;

  async function submit(event: FormEvent) {
    event.preventDefault();
    setDone(false);
    const found = thresholdDays(text);
    setChecked(found);
    if (found) {
      save.clearError();
      document.getElementById('thresholds-days')?.focus();
      return;
    }
    // The API answers the list as stored (sorted descending): the field shows that.
    const ok = await save.run(
      () => api.PUT('/api/v1/settings/alert-thresholds', { body: parseDays(text) }),
      (stored) => {
        setText(stored.join(', '));
        replaceThresholds(stored);
      },
    );
    setDone(ok);
  }

  return (
    <form className="card form" aria-labelledby="thresholds-heading" onSubmit={(event) => void submit(event)} noValidate>
      <h2 id="thresholds-heading">Change the thresholds</h2>
      <label htmlFor="thresholds-days">Days before expiry (1 to 3650, up to 20, separated by commas)</label>
      <input
        id="thresholds-days"
        className="mono"
        value={text}
        autoComplete="off"
        aria-invalid={problem ? true : undefined}
        aria-describedby={problem ? 'thresholds-error' : undefined}
        onChange={(event) => {
          setText(event.target.value);
          setDone(false);
        }}
      />
      {problem && (
        <p className="error field-error" id="thresholds-error" role="alert">
          {problem}
        </p>
      )}
      <div className="actions">
        <button type="submit" className="primary" disabled={save.busy}>
          Save thresholds
        </button>
        <span role="status">{done ? 'Saved.' : ''}</span>
      </div>
    </form>
  );
}
