import { api } from '../../api/client';
import { useAuth } from '../../auth/auth-context';
import { DateTime } from '../../ui/expiry';
import { LoadError, useTitle } from '../../ui/layout';
import { useApiQuery } from '../../ui/use-api-query';
import { RootStoreImport } from './root-store-import';
import { TaskProgress, useTaskRun } from './task-run';

/** The four public root stores trust is judged against, and (settings:edit) their refresh now. */
export function RootStoresPage() {
  useTitle('Root stores');
  const { can } = useAuth();
  const mayRefresh = can('settings:edit');
  const stores = useApiQuery('root-stores', () => api.GET('/api/v1/root-stores'));
  const refresh = useTaskRun(stores.reload);
  return (
    <>
      <h1>Root stores</h1>
      <p className="muted">
        A certificate is trusted by a store when the store&apos;s anchors appear in its issuer chain. The stores are refreshed nightly by
        the maintenance task “Refresh root stores”.
      </p>
      <LoadError message={stores.error} />
      {stores.data && (
        // Nothing in this table takes focus, so its scroll box does, for the keyboard to scroll it on a phone.
        <div className="table-scroll" tabIndex={0} role="region" aria-label="Root stores">
          <table>
            <thead>
              <tr>
                <th scope="col">Store</th>
                <th scope="col">Anchors</th>
                <th scope="col">Last refresh</th>
                <th scope="col">Source</th>
              </tr>
            </thead>
            <tbody>
              {stores.data.map((store) => (
                <tr key={store.id}>
                  <td>{store.name}</td>
                  <td>{store.anchorCount}</td>
                  <td>{store.updatedAt ? <DateTime value={store.updatedAt} /> : <span className="muted">never filled</span>}</td>
                  <td className="mono small">{store.source ?? <span className="muted">none</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {mayRefresh && (
        <div className="actions">
          <button
            type="button"
            className="primary"
            disabled={refresh.running !== null}
            onClick={() => refresh.start('refresh-root-stores')}
          >
            Refresh now
          </button>
        </div>
      )}
      {mayRefresh && <TaskProgress run={refresh} />}
      {mayRefresh && <RootStoreImport onImported={stores.reload} />}
    </>
  );
}
