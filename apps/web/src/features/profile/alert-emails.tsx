import { useState } from 'react';
import { api } from '../../api/client';
import { LoadError } from '../../ui/layout';
import { useAction } from '../../ui/use-action';
import { useApiQuery } from '../../ui/use-api-query';

/**
 * The person's own switch for alert e-mails (PUT /api/v1/me { notify }): saved as it is flipped.
 * The box shows the new state while the save runs and the API's answer afterwards, so a refused
 * save puts it back as the server holds it.
 */
export function AlertEmails() {
  const me = useApiQuery('me:notify', () => api.GET('/api/v1/me'));
  // The value the last save stored; null until the person changes it.
  const [stored, setStored] = useState<boolean | null>(null);
  // The state asked for, while its save runs.
  const [pending, setPending] = useState<boolean | null>(null);
  const [saved, setSaved] = useState(false);
  const saving = useAction();
  const notify = pending ?? stored ?? me.data?.notify;

  async function change(next: boolean) {
    setSaved(false);
    setPending(next);
    await saving.run(
      () => api.PUT('/api/v1/me', { body: { notify: next } }),
      (answer) => {
        setStored(answer.notify);
        setSaved(true);
      },
    );
    setPending(null);
  }

  return (
    <section aria-labelledby="alert-emails-heading">
      <h2 id="alert-emails-heading">Alert e-mails</h2>
      <LoadError message={me.error} />
      {notify !== undefined && me.data && (
        <>
          <label className="inline">
            <input type="checkbox" checked={notify} disabled={saving.busy} onChange={(event) => void change(event.target.checked)} />
            E-mail me when a certificate of my subscribed endpoints nears expiry (to {me.data.email})
          </label>
          <p className="muted small">Your calendar feed and the dashboard are not affected.</p>
          <span role="status">{saved ? (notify ? 'Saved: alert e-mails on.' : 'Saved: alert e-mails off.') : ''}</span>
          <LoadError message={saving.error} />
        </>
      )}
    </section>
  );
}
