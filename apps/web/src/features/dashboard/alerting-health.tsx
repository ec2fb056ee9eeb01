import { Link } from 'react-router';
import type { Schemas } from '../../api/client';
import { useAuth } from '../../auth/auth-context';
import { DateTime } from '../../ui/expiry';
import './alerting-health.css';

/**
 * Whether anyone will hear of an expiry (the dashboard's `alerting`, docs/api-contract.md section
 * 11): a banner naming each reason alerts may not go out (mail off, deliveries that failed at the
 * last run, scanners whose agents do not call in), each with the way to fix it for those who may.
 * Nothing when all is well, so the banner is only ever news.
 */
export function AlertingHealth({ alerting }: { alerting: Schemas['AlertingDto'] }) {
  const { can } = useAuth();
  const { mailEnabled, pendingFailures, lastRunAt, offlineScanners, failingChannels } = alerting;
  if (mailEnabled && pendingFailures === 0 && offlineScanners.length === 0 && failingChannels.length === 0) return null;
  return (
    <section className="alerting-health" aria-labelledby="alerting-heading">
      <h2 id="alerting-heading">Alerts may not reach anyone</h2>
      <ul>
        {!mailEnabled && (
          <li>
            Mail is off: no alert e-mail is sent.{' '}
            {can('settings:edit') ? <Link to="/settings/mail">Set up mail</Link> : <span>An administrator can set it up in Settings.</span>}
          </li>
        )}
        {pendingFailures > 0 && (
          <li>
            {pendingFailures} {pendingFailures === 1 ? 'alert' : 'alerts'} could not be delivered at the last run
            {lastRunAt && (
              <>
                {' '}
                (<DateTime value={lastRunAt} />)
              </>
            )}
            ; the next run tries again. {can('settings:edit') && <Link to="/settings/mail">Check the mail settings</Link>}
          </li>
        )}
        {failingChannels.length > 0 && (
          <li>
            Notification channels failing:{' '}
            {failingChannels.map((channel) => `${channel.name} (${channel.kind}: ${channel.lastError})`).join('; ')}.{' '}
            <Link to="/settings/channels">Channels</Link>
          </li>
        )}
        {offlineScanners.length > 0 && (
          <li>
            Scanners offline, their endpoints not scanned: {offlineScanners.map((scanner) => scanner.name).join(', ')}.{' '}
            <Link to="/scanners">Scanners</Link>
          </li>
        )}
      </ul>
    </section>
  );
}
