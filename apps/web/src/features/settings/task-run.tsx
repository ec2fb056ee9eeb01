import { useEffect, useRef, useState } from 'react';
import { api, errorMessage, unreachable, type Schemas } from '../../api/client';
import { LoadError } from '../../ui/layout';

type Task = Schemas['MaintenanceTaskDto'];
type TaskName = Task['name'];
export type TaskResult = Schemas['MaintenanceResultDto'];

const POLL_MS = 2000;

export interface TaskRun {
  /** The task under way (started here, or found running elsewhere and awaited), else null. */
  running: TaskName | null;
  /** Set when the run was already going elsewhere and this screen waits for its end. */
  waitingForOther: boolean;
  seconds: number;
  result: TaskResult | null;
  error: string | null;
  start: (name: TaskName) => void;
}

/**
 * Runs one maintenance task. The API answers its outcome when the run ends; while it runs the
 * screen shows the time elapsed. A run already going (here or on another replica) is refused
 * with 409: then GET /maintenance/tasks is polled until the task is no longer running, and the
 * outcome that run recorded (before it let go of the task) is shown.
 */
export function useTaskRun(onFinished: () => void): TaskRun {
  const [running, setRunning] = useState<TaskName | null>(null);
  const [waitingForOther, setWaitingForOther] = useState(false);
  const [seconds, setSeconds] = useState(0);
  const [result, setResult] = useState<TaskResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const mounted = useRef(true);
  const finished = useRef(onFinished);
  finished.current = onFinished;

  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  useEffect(() => {
    if (!running) return;
    const started = Date.now();
    setSeconds(0);
    const timer = window.setInterval(() => setSeconds(Math.round((Date.now() - started) / 1000)), 1000);
    return () => window.clearInterval(timer);
  }, [running]);

  async function awaitOtherRun(name: TaskName): Promise<TaskResult | null> {
    while (mounted.current) {
      await new Promise((resolve) => window.setTimeout(resolve, POLL_MS));
      const { data, error: apiError, response } = await api.GET('/api/v1/maintenance/tasks');
      if (!data) throw new Error(errorMessage(apiError, response));
      const task = data.find((candidate) => candidate.name === name);
      if (task && !task.running) return { name, outcome: task.lastOutcome ?? 'unknown', counts: task.lastCounts ?? {} };
    }
    return null;
  }

  function start(name: TaskName) {
    setRunning(name);
    setWaitingForOther(false);
    setResult(null);
    setError(null);
    void (async () => {
      try {
        const { data, error: apiError, response } = await api.POST('/api/v1/maintenance/tasks/{name}/run', { params: { path: { name } } });
        let outcome: TaskResult | null = data ?? null;
        if (response.status === 409) {
          setWaitingForOther(true);
          outcome = await awaitOtherRun(name);
        } else if (!data) throw new Error(errorMessage(apiError, response));
        if (!mounted.current) return;
        setResult(outcome);
      } catch (caught) {
        if (mounted.current) setError(caught instanceof TypeError ? unreachable(caught) : (caught as Error).message);
      } finally {
        if (mounted.current) {
          setRunning(null);
          setWaitingForOther(false);
          finished.current();
        }
      }
    })();
  }

  return { running, waitingForOther, seconds, result, error, start };
}

const TASK_LABELS: Record<TaskName, string> = {
  'refresh-root-stores': 'Refresh root stores',
  'purge-history': 'Purge history',
  'prune-certificates': 'Prune certificates',
  'purge-alert-records': 'Purge alert records',
  'refresh-renewal-info': 'Refresh renewal information',
};

export function taskLabel(name: TaskName): string {
  return TASK_LABELS[name];
}

/** "3 purged, 12 kept": the counts a task reports, as it names them. */
export function countsText(counts: Record<string, number> | null): string {
  if (!counts || Object.keys(counts).length === 0) return '';
  return Object.entries(counts)
    .map(([name, count]) => `${name}: ${count}`)
    .join(', ');
}

/** Progress while a task runs, then its outcome, in one live region; a failure to run as an alert. */
export function TaskProgress({ run }: { run: TaskRun }) {
  let message = '';
  if (run.running)
    message = run.waitingForOther
      ? `${taskLabel(run.running)} was already running elsewhere; waiting for it to finish…`
      : `${taskLabel(run.running)} is running…`;
  else if (run.result) {
    const counts = countsText(run.result.counts);
    message = `${taskLabel(run.result.name as TaskName)} finished: ${run.result.outcome}${counts ? ` (${counts})` : ''}.`;
  }
  return (
    <div className="task-progress">
      <p role="status" className={run.result?.outcome.startsWith('failed') && !run.running ? 'error' : undefined}>
        {message}
      </p>
      {run.running && (
        <>
          <progress aria-label={`${taskLabel(run.running)} in progress`} />
          {/* Outside the live region: a count each second is not worth announcing. */}
          <p className="muted small">{run.seconds} s elapsed</p>
        </>
      )}
      <LoadError message={run.error} />
    </div>
  );
}
