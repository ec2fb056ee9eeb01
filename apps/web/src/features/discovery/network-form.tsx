import { useState, type FormEvent } from 'react';
import type { Schemas } from '../../api/client';
import * as check from '../../ui/field-checks';
import {
  checkedProblems,
  FieldError,
  fieldProps,
  firstOf,
  focusFirstProblem,
  GeneralProblem,
  noProblems,
  splitProblems,
  type Problems,
} from '../../ui/form-problems';
import { useAction } from '../../ui/use-action';
import type { ApiResult } from '../../ui/use-api-query';

export type Network = Schemas['NetworkResponseDto'];
export type NetworkBody = Schemas['NetworkInputDto'];
type Scanner = Schemas['ScannerResponseDto'];

const FIELDS = ['name', 'ranges', 'ports', 'scannerId', 'scanCronExpression', 'enabled'] as const;
type Field = (typeof FIELDS)[number];

export const NEW_NETWORK: NetworkBody = {
  name: '',
  ranges: [],
  ports: [443],
  scannerId: null,
  scanCronExpression: '0 2 * * *',
  enabled: true,
};

/** Entries typed one per line or separated by commas. */
function listOf(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

/** Ports as numbers; anything else is sent as typed, for the API to name the entry. */
function portsOf(text: string): number[] {
  return listOf(text).map((entry) => (/^\d+$/.test(entry) ? Number(entry) : (entry as unknown as number)));
}

/** Name, ranges, ports, scanner, schedule and enabled; the API's sentences next to the fields they name. */
export function NetworkForm({
  idPrefix,
  heading,
  submitLabel,
  initial,
  scanners,
  resetOnSuccess = false,
  save,
  onSaved,
  onCancel,
}: {
  idPrefix: string;
  heading: string;
  submitLabel: string;
  initial: NetworkBody;
  scanners: Scanner[];
  resetOnSuccess?: boolean;
  save: (body: NetworkBody) => Promise<ApiResult<Network>>;
  onSaved: (network: Network) => void;
  onCancel?: () => void;
}) {
  const [name, setName] = useState(initial.name);
  const [ranges, setRanges] = useState(initial.ranges.join('\n'));
  const [ports, setPorts] = useState((initial.ports ?? [443]).join(', '));
  const [scannerId, setScannerId] = useState(initial.scannerId ?? '');
  const [schedule, setSchedule] = useState(initial.scanCronExpression ?? '');
  const [enabled, setEnabled] = useState(initial.enabled ?? true);
  const action = useAction();
  // What the form's own checks found, until the next submit; otherwise the API's refusal.
  const [checked, setChecked] = useState<Problems<Field> | null>(null);
  const problems = checked ?? (action.error ? splitProblems(action.error, FIELDS) : noProblems<Field>());

  async function submit(event: FormEvent) {
    event.preventDefault();
    const badPort = listOf(ports).find((entry) => check.port(entry) !== null);
    const found = checkedProblems<Field>({
      name: firstOf(check.required(name, 'a name'), check.maxLength(name, 200, 'the name')),
      ranges: check.required(ranges, 'at least one address, CIDR block or range'),
      ports: firstOf(
        check.required(ports, 'at least one port'),
        badPort === undefined ? null : `“${badPort}” is not a port: each is a whole number from 1 to 65535.`,
      ),
      scanCronExpression: firstOf(check.required(schedule, 'a schedule'), check.cron(schedule)),
    });
    setChecked(found);
    if (found) {
      action.clearError();
      focusFirstProblem(idPrefix, found, FIELDS);
      return;
    }
    const body: NetworkBody = {
      name: name.trim(),
      ranges: listOf(ranges),
      ports: portsOf(ports),
      scannerId: scannerId === '' ? null : scannerId,
      scanCronExpression: schedule.trim(),
      enabled,
    };
    const saved = await action.run(() => save(body), onSaved);
    if (saved && resetOnSuccess) {
      setName(initial.name);
      setRanges(initial.ranges.join('\n'));
      setPorts((initial.ports ?? [443]).join(', '));
      setScannerId(initial.scannerId ?? '');
      setSchedule(initial.scanCronExpression ?? '');
      setEnabled(initial.enabled ?? true);
    }
  }

  const field = (name: Field) => fieldProps(idPrefix, name, problems);
  const error = (name: Field) => <FieldError idPrefix={idPrefix} field={name} problems={problems} />;

  return (
    <form className="card form" aria-labelledby={`${idPrefix}-heading`} onSubmit={(event) => void submit(event)} noValidate>
      <h2 id={`${idPrefix}-heading`}>{heading}</h2>
      <label htmlFor={`${idPrefix}-name`}>Name</label>
      <input {...field('name')} value={name} maxLength={200} onChange={(event) => setName(event.target.value)} />
      {error('name')}
      <label htmlFor={`${idPrefix}-ranges`}>Ranges (one per line: an address, a CIDR block or a dash range)</label>
      <textarea
        {...field('ranges')}
        className="mono ranges"
        value={ranges}
        placeholder={'192.0.2.0/24\n198.51.100.10-198.51.100.40'}
        onChange={(event) => setRanges(event.target.value)}
      />
      {error('ranges')}
      <label htmlFor={`${idPrefix}-ports`}>Ports (separated by commas)</label>
      <input {...field('ports')} className="mono" value={ports} autoComplete="off" onChange={(event) => setPorts(event.target.value)} />
      {error('ports')}
      <label htmlFor={`${idPrefix}-scannerId`}>Scanner</label>
      <select {...field('scannerId')} value={scannerId} onChange={(event) => setScannerId(event.target.value)}>
        <option value="">The default scanner</option>
        {scanners.map((scanner) => (
          <option key={scanner.id} value={scanner.id}>
            {scanner.name}
            {scanner.isDefault ? ' (default)' : ''}
          </option>
        ))}
      </select>
      {error('scannerId')}
      <label htmlFor={`${idPrefix}-scanCronExpression`}>Sweep schedule (5-field cron expression)</label>
      <input
        {...field('scanCronExpression')}
        className="mono"
        value={schedule}
        autoComplete="off"
        onChange={(event) => setSchedule(event.target.value)}
      />
      {error('scanCronExpression')}
      <label className="inline" htmlFor={`${idPrefix}-enabled`}>
        <input {...field('enabled')} type="checkbox" checked={enabled} onChange={(event) => setEnabled(event.target.checked)} />
        Swept on its schedule
      </label>
      {error('enabled')}
      <GeneralProblem problems={problems} />
      <div className="actions">
        <button type="submit" className="primary" disabled={action.busy}>
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
