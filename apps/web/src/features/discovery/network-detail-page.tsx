import { useCallback, useEffect, useState } from 'react';
import { Link, useParams } from 'react-router';
import { api } from '../../api/client';
import { useAuth } from '../../auth/auth-context';
import { DateTime } from '../../ui/expiry';
import { LoadError, useTitle } from '../../ui/layout';
import { useAction } from '../../ui/use-action';
import { useApiQuery } from '../../ui/use-api-query';
import { ScannerName } from './scanner-name';
import { isActive, SweepProgress, type Sweep } from './sweep-progress';

const SWEEP_ROWS = 50;

/** A network, its sweeps newest first, "Sweep now" (discovery:edit) and the live progress of the sweep under way. */
export function NetworkDetailPage() {
  const { id = '' } = useParams();
  const { can } = useAuth();
  const network = useApiQuery(`network:${id}`, () => api.GET('/api/v1/discovery/networks/{id}', { params: { path: { id } } }));
  const sweeps = useApiQuery(`sweeps:${id}`, () =>
    api.GET('/api/v1/discovery/networks/{id}/sweeps', { params: { path: { id }, query: { limit: SWEEP_ROWS } } }),
  );
  const scanners = useApiQuery('scanners', () => api.GET('/api/v1/scanners'));
  const sweepNow = useAction();
  const [watched, setWatched] = useState<string | null>(null);
  const [live, setLive] = useState<Sweep | null>(null);
  useTitle(network.data?.name ?? 'Network');

  // A sweep under way when the screen opens (requested elsewhere, or on the schedule) is followed too.
  const underWay = sweeps.data?.find(isActive)?.id;
  useEffect(() => {
    if (underWay && underWay !== watched) setWatched(underWay);
  }, [underWay, watched]);

  const { reload: reloadSweeps } = sweeps;
  const { reload: reloadNetwork } = network;
  const ended = useCallback(() => {
    reloadSweeps();
    reloadNetwork();
  }, [reloadSweeps, reloadNetwork]);

  const start = () =>
    void sweepNow.run(
      () => api.POST('/api/v1/discovery/networks/{id}/sweeps', { params: { path: { id } } }),
      (sweep) => {
        setWatched(sweep.id);
        reloadSweeps();
      },
    );

  const data = network.data;
  const rows = (sweeps.data ?? []).map((sweep) => (live?.id === sweep.id ? live : sweep));
  return (
    <div className="discovery">
      <LoadError message={network.error} />
      {!data && network.loading && <p role="status">Loading…</p>}
      {data && (
        <>
          <h1>{data.name}</h1>
          <dl className="facts">
            <div>
              <dt>Ranges</dt>
              <dd className="mono">{data.ranges.join(', ')}</dd>
            </div>
            <div>
              <dt>Ports</dt>
              <dd className="mono">{data.ports.join(', ')}</dd>
            </div>
            <div>
              <dt>Scanner</dt>
              <dd>
                <ScannerName scannerId={data.scannerId} scanners={scanners.data} />
              </dd>
            </div>
            <div>
              <dt>Schedule</dt>
              <dd className="mono">{data.enabled ? data.scanCronExpression : 'not scheduled (disabled)'}</dd>
            </div>
            <div>
              <dt>Last sweep finished</dt>
              <dd>
                <DateTime value={data.lastSweepAt} />
              </dd>
            </div>
          </dl>
          <p>
            <Link to={`/discovery/inbox?networkId=${data.id}`}>What this network's sweeps found</Link>
          </p>
          {can('discovery:edit') && (
            <div className="actions">
              <button type="button" className="primary" disabled={sweepNow.busy || (live !== null && isActive(live))} onClick={start}>
                Sweep now
              </button>
              <LoadError message={sweepNow.error} />
            </div>
          )}
        </>
      )}
      {watched && <SweepProgress key={watched} sweepId={watched} onChange={setLive} onEnded={ended} />}
      <section aria-labelledby="sweeps-heading">
        <h2 id="sweeps-heading">Sweeps</h2>
        <LoadError message={sweeps.error} />
        {sweeps.data && sweeps.data.length === 0 && <p className="muted">Not swept yet.</p>}
        {rows.length > 0 && (
          <div className="table-scroll">
            <table>
              <thead>
                <tr>
                  <th scope="col">Requested</th>
                  <th scope="col">Status</th>
                  <th scope="col">Addresses probed</th>
                  <th scope="col">Services found</th>
                  <th scope="col">Started</th>
                  <th scope="col">Finished</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((sweep) => (
                  <tr key={sweep.id}>
                    <td>
                      <DateTime value={sweep.requestedAt} />
                    </td>
                    <td>
                      {sweep.status}
                      {sweep.error && <span className="error"> ({sweep.error})</span>}
                    </td>
                    <td>
                      {sweep.addressesProbed} of {sweep.addressesTotal}
                    </td>
                    <td>{sweep.servicesFound}</td>
                    <td>
                      <DateTime value={sweep.startedAt} />
                    </td>
                    <td>
                      <DateTime value={sweep.finishedAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </div>
  );
}
