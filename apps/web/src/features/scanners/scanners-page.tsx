import { useState, type FormEvent } from 'react';
import { api, type Schemas } from '../../api/client';
import { useAuth } from '../../auth/auth-context';
import { DateTime } from '../../ui/expiry';
import * as check from '../../ui/field-checks';
import {
  checkedProblems,
  FieldError,
  GeneralProblem,
  fieldProps,
  firstOf,
  focusFirstProblem,
  noProblems,
  splitProblems,
  type Problems,
} from '../../ui/form-problems';
import { LoadError, useTitle } from '../../ui/layout';
import { ConfirmAction, ShownOnce } from '../../ui/shown-once';
import { useAction } from '../../ui/use-action';
import { useApiQuery, type ApiResult } from '../../ui/use-api-query';
import { AgentCommands } from './agent-commands';
import { ScannerStatus } from './scanner-status';
import { EditToggle } from '../../ui/edit-toggle';
import '../../ui/card-table.css';

type Scanner = Schemas['ScannerResponseDto'];
type Settings = Schemas['CreateScannerDto'];
const FIELDS = ['name', 'scanCronExpression', 'scanConcurrency'] as const;
type Field = (typeof FIELDS)[number];

/** Scanners: every role sees the list; scanners:edit (admin) creates, edits, re-keys and deletes them. */
export function ScannersPage() {
  useTitle('Scanners');
  const { can } = useAuth();
  const mayEdit = can('scanners:edit');
  const scanners = useApiQuery('scanners', () => api.GET('/api/v1/scanners'));
  const [shown, setShown] = useState<{ id: string; name: string; token: string; regenerated: boolean } | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<{ id: string; action: 'delete' | 'regenerate' } | null>(null);
  const action = useAction();
  const busy = action.busy;
  // The row whose action ran last: the API's sentence is shown in that row.
  const [actionRow, setActionRow] = useState<string | null>(null);
  const actionError = action.error && actionRow ? { id: actionRow, message: action.error } : null;

  /** Runs one row action; the API's sentence is shown in that row when it refuses. */
  async function act<T>(id: string, call: () => Promise<ApiResult<T>>, onDone?: (data: T) => void) {
    setActionRow(id);
    await action.run(call, (data) => {
      setConfirming(null);
      onDone?.(data);
      scanners.reload();
    });
  }

  const ask = (id: string, kind: 'delete' | 'regenerate') => {
    setConfirming({ id, action: kind });
    action.clearError();
  };

  const save = (scanner: Scanner, body: Settings) => api.PATCH('/api/v1/scanners/{id}', { params: { path: { id: scanner.id } }, body });
  const saved = () => {
    setEditing(null);
    scanners.reload();
  };

  const create = (body: Settings) => api.POST('/api/v1/scanners', { body });
  const created = (scanner: Schemas['ScannerWithTokenResponseDto']) => {
    setShown({ id: scanner.id, name: scanner.name, token: scanner.token, regenerated: false });
    scanners.reload();
  };

  const editedScanner = scanners.data?.find((scanner) => scanner.id === editing);

  return (
    <div className="scanners">
      <h1>Scanners</h1>
      <p className="muted">
        A scanner is an agent that probes the endpoints assigned to it on its schedule; the default scanner also takes the endpoints
        assigned to none.
      </p>
      <LoadError message={scanners.error} />
      {shown && (
        <ShownOnce
          key={shown.token}
          id="scanner-token"
          label="Scanner token"
          copyLabel="Copy the scanner token"
          value={shown.token}
          note={`${shown.regenerated ? 'The new token' : 'The token'} of “${shown.name}”, shown only now: give it to its agent as SCANNER_TOKEN.${
            shown.regenerated ? ' The old token no longer works.' : ''
          }`}
        >
          <AgentCommands token={shown.token} />
        </ShownOnce>
      )}
      {scanners.data && scanners.data.length === 0 && <p className="muted">No scanner.</p>}
      {scanners.data && scanners.data.length > 0 && (
        <div className="table-scroll">
          <table className="card-table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Default</th>
                <th scope="col">Schedule</th>
                <th scope="col">Concurrency</th>
                <th scope="col">Last seen</th>
                <th scope="col">Created</th>
                {mayEdit && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {scanners.data.map((scanner) => (
                <tr key={scanner.id}>
                  <td className="card-title">{scanner.name}</td>
                  <td data-label="Status">
                    <ScannerStatus online={scanner.online} lastUsedAt={scanner.lastUsedAt} />
                  </td>
                  <td data-label="Default">{scanner.isDefault ? 'Default' : <span className="muted">no</span>}</td>
                  <td className="mono nowrap" data-label="Schedule">
                    {scanner.scanCronExpression}
                  </td>
                  <td data-label="Concurrency">{scanner.scanConcurrency}</td>
                  <td data-label="Last seen">
                    <DateTime value={scanner.lastUsedAt} />
                  </td>
                  <td data-label="Created">
                    <DateTime value={scanner.createdAt} />
                  </td>
                  {mayEdit && (
                    <td data-label="Actions">
                      <div className="row-actions">
                        <EditToggle
                          name={scanner.name}
                          open={editing === scanner.id}
                          onToggle={() => setEditing(editing === scanner.id ? null : scanner.id)}
                        />
                        <ConfirmAction
                          label="Regenerate token"
                          accessibleLabel={`Regenerate token of ${scanner.name}`}
                          question="Regenerate the token? The old one stops working at once."
                          confirmLabel={`Yes, regenerate the token of ${scanner.name}`}
                          confirming={confirming?.id === scanner.id && confirming.action === 'regenerate'}
                          busy={busy}
                          onAsk={() => ask(scanner.id, 'regenerate')}
                          onCancel={() => setConfirming(null)}
                          onConfirm={() =>
                            void act(
                              scanner.id,
                              () => api.POST('/api/v1/scanners/{id}/regenerate-token', { params: { path: { id: scanner.id } } }),
                              (answer) => setShown({ id: answer.id, name: answer.name, token: answer.token, regenerated: true }),
                            )
                          }
                        />
                        {!scanner.isDefault && (
                          <button
                            type="button"
                            aria-label={`Make default: ${scanner.name}`}
                            disabled={busy}
                            onClick={() =>
                              void act(scanner.id, () =>
                                api.POST('/api/v1/scanners/{id}/default', { params: { path: { id: scanner.id } } }),
                              )
                            }
                          >
                            Make default
                          </button>
                        )}
                        <ConfirmAction
                          label="Delete"
                          accessibleLabel={`Delete ${scanner.name}`}
                          question="Delete this scanner? Its endpoints go to the default scanner; its networks are not swept until assigned again."
                          confirmLabel={`Yes, delete ${scanner.name}`}
                          confirming={confirming?.id === scanner.id && confirming.action === 'delete'}
                          busy={busy}
                          onAsk={() => ask(scanner.id, 'delete')}
                          onCancel={() => setConfirming(null)}
                          onConfirm={() =>
                            void act(
                              scanner.id,
                              () => api.DELETE('/api/v1/scanners/{id}', { params: { path: { id: scanner.id } } }),
                              () => {
                                if (editing === scanner.id) setEditing(null);
                                if (shown?.id === scanner.id) setShown(null);
                              },
                            )
                          }
                        />
                      </div>
                      {actionError?.id === scanner.id && (
                        <p className="error" role="alert">
                          {actionError.message}
                        </p>
                      )}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {mayEdit && editedScanner && (
        <ScannerForm
          key={editedScanner.id}
          idPrefix="edit-scanner"
          heading={`Edit ${editedScanner.name}`}
          submitLabel="Save scanner"
          initial={editedScanner}
          onSubmit={(body) => save(editedScanner, body)}
          onSaved={saved}
          onCancel={() => setEditing(null)}
        />
      )}
      {mayEdit && (
        <ScannerForm
          idPrefix="new-scanner"
          heading="New scanner"
          submitLabel="Create scanner"
          initial={{ name: '', scanCronExpression: '0 * * * *', scanConcurrency: 5 }}
          resetOnSuccess
          onSubmit={create}
          onSaved={created}
        />
      )}
    </div>
  );
}

/** Name, schedule and concurrency; the API's sentences shown next to the fields they name. */
function ScannerForm<T>({
  idPrefix,
  heading,
  submitLabel,
  initial,
  resetOnSuccess = false,
  onSubmit,
  onSaved,
  onCancel,
}: {
  idPrefix: string;
  heading: string;
  submitLabel: string;
  initial: Settings;
  resetOnSuccess?: boolean;
  onSubmit: (body: Settings) => Promise<ApiResult<T>>;
  onSaved: (answer: T) => void;
  onCancel?: () => void;
}) {
  const [name, setName] = useState(initial.name);
  const [schedule, setSchedule] = useState(initial.scanCronExpression);
  const [concurrency, setConcurrency] = useState(String(initial.scanConcurrency));
  const submission = useAction();
  // What the form's own checks found, until the next submit; otherwise the API's refusal.
  const [checked, setChecked] = useState<Problems<Field> | null>(null);
  const problems: Problems<Field> = checked ?? (submission.error ? splitProblems(submission.error, FIELDS) : noProblems());

  async function submit(event: FormEvent) {
    event.preventDefault();
    const found = checkedProblems<Field>({
      name: firstOf(check.required(name, 'a name'), check.maxLength(name, 200, 'the name')),
      scanCronExpression: firstOf(check.required(schedule, 'a schedule'), check.cron(schedule)),
      scanConcurrency: firstOf(check.required(concurrency, 'the concurrency'), check.integerFrom(concurrency, 1, 256, 'the concurrency')),
    });
    setChecked(found);
    if (found) {
      submission.clearError();
      focusFirstProblem(idPrefix, found, FIELDS);
      return;
    }
    // A concurrency that is not a number is sent as written, for the API to name the problem.
    const count = Number(concurrency);
    const body = {
      name: name.trim(),
      scanCronExpression: schedule.trim(),
      scanConcurrency: concurrency.trim() !== '' && Number.isFinite(count) ? count : (concurrency as unknown as number),
    };
    await submission.run(
      () => onSubmit(body),
      (answer) => {
        if (resetOnSuccess) {
          setName(initial.name);
          setSchedule(initial.scanCronExpression);
          setConcurrency(String(initial.scanConcurrency));
        }
        onSaved(answer);
      },
    );
  }
  const busy = submission.busy;

  return (
    <form className="card form" aria-labelledby={`${idPrefix}-heading`} onSubmit={(event) => void submit(event)} noValidate>
      <h2 id={`${idPrefix}-heading`}>{heading}</h2>
      <label htmlFor={`${idPrefix}-name`}>Name</label>
      <input
        {...fieldProps(idPrefix, 'name', problems)}
        value={name}
        required
        maxLength={200}
        onChange={(event) => setName(event.target.value)}
      />
      <FieldError idPrefix={idPrefix} field="name" problems={problems} />
      <label htmlFor={`${idPrefix}-scanCronExpression`}>Schedule (5-field cron expression)</label>
      <input
        {...fieldProps(idPrefix, 'scanCronExpression', problems)}
        className="mono"
        value={schedule}
        autoComplete="off"
        onChange={(event) => setSchedule(event.target.value)}
      />
      <FieldError idPrefix={idPrefix} field="scanCronExpression" problems={problems} />
      <label htmlFor={`${idPrefix}-scanConcurrency`}>Concurrency (endpoints probed in parallel, 1 to 256)</label>
      <input
        {...fieldProps(idPrefix, 'scanConcurrency', problems)}
        type="number"
        min={1}
        max={256}
        value={concurrency}
        onChange={(event) => setConcurrency(event.target.value)}
      />
      <FieldError idPrefix={idPrefix} field="scanConcurrency" problems={problems} />
      <GeneralProblem problems={problems} />
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          {submitLabel}
        </button>
        {onCancel && (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
