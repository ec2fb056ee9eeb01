import { useEffect, useRef } from 'react';
import { api, type Schemas } from '../../api/client';
import { LoadError } from '../../ui/layout';
import { useApiQuery } from '../../ui/use-api-query';

export type Sweep = Schemas['SweepResponseDto'];

/** How often a queued or running sweep is read again. */
const SWEEP_POLL_MS = 1000;

export function isActive(sweep: Pick<Sweep, 'status'>): boolean {
  return sweep.status === 'queued' || sweep.status === 'running';
}

/** One line for a sweep's state and counts, as a screen reader reads it in the status region. */
export function sweepSummary(sweep: Sweep): string {
  const services = `${sweep.servicesFound} ${sweep.servicesFound === 1 ? 'service' : 'services'} found`;
  const probed = `${sweep.addressesProbed} of ${sweep.addressesTotal} addresses probed`;
  switch (sweep.status) {
    case 'queued':
      return `Queued: waiting for the scanner's agent to take it (${sweep.addressesTotal} addresses).`;
    case 'running':
      return `Running: ${probed}, ${services}.`;
    case 'completed':
      return `Completed: ${probed}, ${services}.`;
    case 'failed':
      return `Failed: ${probed}, ${services}. ${sweep.error ?? ''}`.trim();
  }
}

/**
 * A sweep's progress, read again every second while it is queued or running (each read waits for
 * the previous one, so a slow server is not piled up on); the polling stops when the sweep ends or
 * the screen closes. `onChange` gets every new reading, `onEnded` the first that finds it ended.
 */
export function SweepProgress({
  sweepId,
  onChange,
  onEnded,
}: {
  sweepId: string;
  onChange?: (sweep: Sweep) => void;
  onEnded?: (sweep: Sweep) => void;
}) {
  const sweep = useApiQuery(`sweep:${sweepId}`, () => api.GET('/api/v1/discovery/sweeps/{id}', { params: { path: { id: sweepId } } }));
  const { data, loading, error, reload } = sweep;
  const polling = data ? isActive(data) : error === null;

  useEffect(() => {
    if (!polling || loading) return;
    const timer = window.setTimeout(reload, SWEEP_POLL_MS);
    return () => window.clearTimeout(timer);
  }, [polling, loading, data, reload]);

  // The callbacks change with every render of the parent; the effects below follow the readings only.
  const callbacks = useRef({ onChange, onEnded });
  callbacks.current = { onChange, onEnded };
  const endReported = useRef(false);
  useEffect(() => {
    if (!data) return;
    callbacks.current.onChange?.(data);
    if (!isActive(data) && !endReported.current) {
      endReported.current = true;
      callbacks.current.onEnded?.(data);
    }
  }, [data]);

  return (
    <section className="card sweep-progress" aria-labelledby="sweep-progress-heading">
      <h2 id="sweep-progress-heading">Sweep progress</h2>
      <LoadError message={error} />
      {data && (
        <>
          <label htmlFor="sweep-progress-bar">Addresses probed</label>
          <progress
            id="sweep-progress-bar"
            max={Math.max(1, data.addressesTotal)}
            // An indeterminate bar while queued: the agent has not said how many addresses it takes.
            value={data.status === 'queued' ? undefined : data.addressesProbed}
          >
            {data.addressesProbed} of {data.addressesTotal}
          </progress>
          <p role="status">{sweepSummary(data)}</p>
        </>
      )}
    </section>
  );
}
