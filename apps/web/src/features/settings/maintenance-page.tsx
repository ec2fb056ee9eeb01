import { api } from '../../api/client';
import { useAuth } from '../../auth/auth-context';
import { DateTime } from '../../ui/expiry';
import { LoadError, useTitle } from '../../ui/layout';
import { useApiQuery } from '../../ui/use-api-query';
import { ReadOnlyNote } from './settings-section';
import { countsText, taskLabel, TaskProgress, useTaskRun } from './task-run';

/** The maintenance tasks, nightly and hourly: their schedule and last run, and (settings:edit) a run now. */
export function MaintenancePage() {
  useTitle('Maintenance');
  const { can } = useAuth();
  const mayRun = can('settings:edit');
  const tasks = useApiQuery('maintenance-tasks', () => api.GET('/api/v1/maintenance/tasks'));
  const run = useTaskRun(tasks.reload);
  return (
    <>
      <h1>Maintenance</h1>
      <p className="muted">
        Schedules are cron expressions in UTC; the nightly tasks run in this order, and renewal information is refreshed hourly.
      </p>
      {!mayRun && <ReadOnlyNote />}
      <LoadError message={tasks.error} />
      {tasks.data && (
        <div className="table-scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Task</th>
                <th scope="col">Schedule</th>
                <th scope="col">Last run</th>
                <th scope="col">Outcome</th>
                <th scope="col">Counts</th>
                {mayRun && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {tasks.data.map((task) => (
                <tr key={task.name}>
                  <td>
                    {taskLabel(task.name)} <span className="mono small muted">{task.name}</span>
                  </td>
                  <td className="mono nowrap">{task.schedule}</td>
                  <td>
                    <DateTime value={task.lastRunAt} />
                  </td>
                  <td className={task.lastOutcome?.startsWith('failed') && !task.running ? 'error' : undefined}>
                    {task.running ? <strong>running now</strong> : (task.lastOutcome ?? <span className="muted">not run yet</span>)}
                  </td>
                  <td>{countsText(task.lastCounts)}</td>
                  {mayRun && (
                    <td>
                      <button
                        type="button"
                        aria-label={`Run now: ${taskLabel(task.name)}`}
                        disabled={run.running !== null}
                        onClick={() => run.start(task.name)}
                      >
                        Run now
                      </button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {mayRun && <TaskProgress run={run} />}
    </>
  );
}
