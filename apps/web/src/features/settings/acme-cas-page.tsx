import { useState, type FormEvent } from 'react';
import { api, type Schemas } from '../../api/client';
import { useAuth } from '../../auth/auth-context';
import { LoadError, useTitle } from '../../ui/layout';
import { useAction } from '../../ui/use-action';
import { useApiQuery } from '../../ui/use-api-query';
import { ReadOnlyNote } from './settings-section';

type AcmeCa = Schemas['AcmeCaDto'];
type AlertPolicy = Schemas['AlertPolicyDto'];

const MAX_CAS = 20;

/**
 * ACME renewal information (docs/api-contract.md section 15): whether the CAs are asked, and
 * which. The refresh-renewal-info maintenance task asks them hourly.
 */
export function AcmeCasPage() {
  useTitle('ACME CAs');
  const { can } = useAuth();
  const cas = useApiQuery('acme-cas', () => api.GET('/api/v1/settings/acme-cas'));
  const policy = useApiQuery('alert-policy', () => api.GET('/api/v1/settings/alert-policy'));
  const mayEdit = can('settings:edit');
  return (
    <>
      <h1>ACME CAs</h1>
      <p className="muted">
        A CA that speaks ACME renewal information (RFC 9773) suggests when to renew each certificate it issued, and may move that window
        into the past when it must revoke early. Certkeeper asks the CAs below hourly, learns which one issued each certificate, and alerts
        when a window has ended (the <span className="mono">renewal_overdue</span> alert).
      </p>
      {!mayEdit && <ReadOnlyNote />}
      <LoadError message={policy.error ?? cas.error} />
      {policy.data && <RenewalInfoSwitch saved={policy.data} mayEdit={mayEdit} />}
      {cas.data && (mayEdit ? <AcmeCasForm saved={cas.data} /> : <AcmeCaList cas={cas.data} />)}
    </>
  );
}

function RenewalInfoSwitch({ saved, mayEdit }: { saved: AlertPolicy; mayEdit: boolean }) {
  const [on, setOn] = useState(saved.renewalInfo);
  const save = useAction();
  if (!mayEdit)
    return (
      <section className="card" aria-labelledby="renewal-info-heading">
        <h2 id="renewal-info-heading">Renewal information</h2>
        <p>{on ? 'The CAs below are asked, and ended windows are alerted.' : 'Off: no CA is asked and no renewal is alerted.'}</p>
      </section>
    );
  return (
    <section className="card form" aria-labelledby="renewal-info-heading">
      <h2 id="renewal-info-heading">Renewal information</h2>
      <label className="inline">
        <input
          type="checkbox"
          checked={on}
          disabled={save.busy}
          onChange={(event) => {
            const renewalInfo = event.target.checked;
            void save.run(
              () => api.PUT('/api/v1/settings/alert-policy', { body: { renewalInfo } }),
              (stored) => setOn(stored.renewalInfo),
            );
          }}
        />
        Ask the ACME CAs and alert when a suggested renewal window has ended
      </label>
      {save.error && (
        <p className="error" role="alert">
          {save.error}
        </p>
      )}
    </section>
  );
}

function AcmeCaList({ cas }: { cas: AcmeCa[] }) {
  return (
    <section className="card" aria-labelledby="acme-cas-heading">
      <h2 id="acme-cas-heading">CAs asked</h2>
      {cas.length === 0 ? (
        <p>No CA is asked.</p>
      ) : (
        <ul>
          {cas.map((ca) => (
            <li key={ca.name}>
              {ca.name}: <span className="mono small">{ca.directoryUrl}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** The CAs in the order they are tried for an issuer not yet learnt; saved whole, the API's sentence on refusal. */
function AcmeCasForm({ saved }: { saved: AcmeCa[] }) {
  const [rows, setRows] = useState(saved);
  const [done, setDone] = useState(false);
  const save = useAction();
  const edit = (index: number, changed: Partial<AcmeCa>) => {
    setRows(rows.map((row, i) => (i === index ? { ...row, ...changed } : row)));
    setDone(false);
  };

  async function submit(event: FormEvent) {
    event.preventDefault();
    setDone(false);
    setDone(await save.run(() => api.PUT('/api/v1/settings/acme-cas', { body: rows }), setRows));
  }

  return (
    <form className="card form" aria-labelledby="acme-cas-heading" onSubmit={(event) => void submit(event)} noValidate>
      <h2 id="acme-cas-heading">CAs asked, in order</h2>
      {rows.length === 0 && <p>No CA is asked.</p>}
      {rows.map((row, index) => (
        <fieldset key={index} className="acme-ca">
          <legend>CA {index + 1}</legend>
          <label htmlFor={`acme-ca-${index}-name`}>Name</label>
          <input
            id={`acme-ca-${index}-name`}
            value={row.name}
            autoComplete="off"
            onChange={(event) => edit(index, { name: event.target.value })}
          />
          <label htmlFor={`acme-ca-${index}-url`}>Directory URL</label>
          <input
            id={`acme-ca-${index}-url`}
            className="mono"
            type="url"
            value={row.directoryUrl}
            autoComplete="off"
            onChange={(event) => edit(index, { directoryUrl: event.target.value })}
          />
          <button type="button" onClick={() => setRows(rows.filter((_, i) => i !== index))} aria-label={`Remove CA ${index + 1}`}>
            Remove
          </button>
        </fieldset>
      ))}
      {save.error && (
        <p className="error" role="alert">
          {save.error}
        </p>
      )}
      <div className="actions">
        <button type="button" disabled={rows.length >= MAX_CAS} onClick={() => setRows([...rows, { name: '', directoryUrl: 'https://' }])}>
          Add a CA
        </button>
        <button type="submit" className="primary" disabled={save.busy}>
          Save CAs
        </button>
        <span role="status">{done ? 'Saved.' : ''}</span>
      </div>
    </form>
  );
}
