import { useState } from 'react';
import { Link } from 'react-router';
import { api } from '../../api/client';
import { useAuth } from '../../auth/auth-context';
import { DateTime } from '../../ui/expiry';
import { LoadError, useTitle } from '../../ui/layout';
import { ConfirmAction } from '../../ui/shown-once';
import { useAction } from '../../ui/use-action';
import { useApiQuery } from '../../ui/use-api-query';
import { NEW_NETWORK, NetworkForm, type Network } from './network-form';
import { ScannerName } from './scanner-name';
import { EditToggle } from '../../ui/edit-toggle';

/** The networks discovery sweeps; discovery:edit creates, edits and deletes them. */
export function NetworksPage() {
  useTitle('Discovery networks');
  const { can } = useAuth();
  const mayEdit = can('discovery:edit');
  const networks = useApiQuery('networks', () => api.GET('/api/v1/discovery/networks'));
  const scanners = useApiQuery('scanners', () => api.GET('/api/v1/scanners'));
  const [editing, setEditing] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<string | null>(null);
  const remove = useAction();

  const edited = networks.data?.find((network) => network.id === editing);

  async function deleteNetwork(network: Network) {
    const done = await remove.run(() => api.DELETE('/api/v1/discovery/networks/{id}', { params: { path: { id: network.id } } }));
    if (!done) return;
    setDeleting(null);
    if (editing === network.id) setEditing(null);
    networks.reload();
  }

  return (
    <div className="discovery">
      <h1>Networks</h1>
      <p className="muted">
        A network is a set of address ranges and ports that its scanner sweeps for TLS services; what a sweep finds goes to the{' '}
        <Link to="/discovery/inbox">inbox</Link>.
      </p>
      <LoadError message={networks.error ?? scanners.error} />
      {networks.data && networks.data.length === 0 && <p className="muted">No network yet.</p>}
      {networks.data && networks.data.length > 0 && (
        <div className="table-scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Ranges</th>
                <th scope="col">Ports</th>
                <th scope="col">Scanner</th>
                <th scope="col">Schedule</th>
                <th scope="col">Last sweep</th>
                {mayEdit && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {networks.data.map((network) => (
                <tr key={network.id}>
                  <td>
                    <Link to={`/discovery/networks/${network.id}`}>{network.name}</Link>
                  </td>
                  <td className="mono">{network.ranges.join(', ')}</td>
                  <td className="mono">{network.ports.join(', ')}</td>
                  <td>
                    <ScannerName scannerId={network.scannerId} scanners={scanners.data} />
                  </td>
                  <td className="mono nowrap">
                    {network.enabled ? network.scanCronExpression : <span className="muted">not scheduled (disabled)</span>}
                  </td>
                  <td>
                    <DateTime value={network.lastSweepAt} />
                  </td>
                  {mayEdit && (
                    <td>
                      <div className="row-actions">
                        <EditToggle
                          name={network.name}
                          open={editing === network.id}
                          onToggle={() => setEditing(editing === network.id ? null : network.id)}
                        />
                        <ConfirmAction
                          label="Delete"
                          accessibleLabel={`Delete ${network.name}`}
                          question="Delete this network, its sweeps and its inbox entries? Endpoints promoted from it stay."
                          confirmLabel={`Yes, delete ${network.name}`}
                          confirming={deleting === network.id}
                          busy={remove.busy}
                          onAsk={() => {
                            remove.clearError();
                            setDeleting(network.id);
                          }}
                          onCancel={() => setDeleting(null)}
                          onConfirm={() => void deleteNetwork(network)}
                        />
                      </div>
                      {deleting === network.id && <LoadError message={remove.error} />}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {mayEdit && edited && scanners.data && (
        <NetworkForm
          key={edited.id}
          idPrefix="edit-network"
          heading={`Edit ${edited.name}`}
          submitLabel="Save network"
          initial={edited}
          scanners={scanners.data}
          save={(body) => api.PUT('/api/v1/discovery/networks/{id}', { params: { path: { id: edited.id } }, body })}
          onSaved={() => {
            setEditing(null);
            networks.reload();
          }}
          onCancel={() => setEditing(null)}
        />
      )}
      {mayEdit && scanners.data && (
        <NetworkForm
          idPrefix="new-network"
          heading="New network"
          submitLabel="Create network"
          initial={NEW_NETWORK}
          scanners={scanners.data}
          resetOnSuccess
          save={(body) => api.POST('/api/v1/discovery/networks', { body })}
          onSaved={() => networks.reload()}
        />
      )}
    </div>
  );
}
