import { useState } from 'react';
import { Link } from 'react-router';
import { api } from '../../api/client';
import { useAuth } from '../../auth/auth-context';
import { useApiQuery } from '../../ui/use-api-query';
import './onboarding.css';

/** Where a person's "not now" is kept: per user, in this browser only. */
export function dismissalKey(userId: string): string {
  return `certkeeper:onboarding-dismissed:${userId}`;
}

function readDismissed(userId: string): boolean {
  try {
    return localStorage.getItem(dismissalKey(userId)) === 'yes';
  } catch {
    return false;
  }
}

interface Step {
  id: string;
  done: boolean;
  title: string;
  links: { to: string; label: string }[];
}

/**
 * The first-run checklist at the top of the dashboard: each step is read from the API (an
 * endpoint exists, mail is enabled, the caller subscribed to tags or took the calendar feed), so
 * it stays until the work is done wherever it was done, or until the person dismisses it. Steps a
 * role cannot take are left out; mail only for those who may view settings.
 */
export function Onboarding() {
  const { me, can } = useAuth();
  const userId = me?.id ?? '';
  const mayViewSettings = can('settings:view');
  const [dismissedHere, setDismissedHere] = useState(false);
  const dismissed = dismissedHere || (userId !== '' && readDismissed(userId));
  const endpoints = useApiQuery('onboarding:endpoints', () => api.GET('/api/v1/endpoints', { params: { query: { limit: 1 } } }));
  const mail = useApiQuery(`onboarding:mail:${String(mayViewSettings)}`, () =>
    mayViewSettings ? api.GET('/api/v1/settings/mail') : Promise.resolve({ data: undefined, response: new Response() }),
  );
  const own = useApiQuery('onboarding:me', () => api.GET('/api/v1/me'));
  if (dismissed || userId === '' || !endpoints.data || !own.data || (mayViewSettings && !mail.data)) return null;

  const steps: Step[] = [
    {
      id: 'endpoints',
      done: endpoints.data.totalCount > 0,
      title: 'Add the first endpoint, or import a list of them from a CSV file',
      links: can('endpoints:edit')
        ? [
            { to: '/endpoints/new', label: 'Add an endpoint' },
            { to: '/endpoints/import', label: 'Import a CSV file' },
          ]
        : [],
    },
    ...(mayViewSettings
      ? [
          {
            id: 'mail',
            done: mail.data?.enabled === true,
            title: 'Set up mail, so that expiry alerts reach someone',
            links: [{ to: '/settings/mail', label: 'Mail settings' }],
          },
        ]
      : []),
    {
      id: 'subscribe',
      done: own.data.tagSubscriptions.length > 0 || own.data.calendarFeedEnabled,
      title: 'Subscribe to the tags you look after, or take the calendar feed',
      links: [{ to: '/profile', label: 'Your profile' }],
    },
  ];
  const left = steps.filter((step) => !step.done).length;
  if (left === 0) return null;

  function dismiss() {
    try {
      localStorage.setItem(dismissalKey(userId), 'yes');
    } catch {
      // Storage refused (private mode): hidden for this visit only.
    }
    setDismissedHere(true);
  }

  return (
    <section className="card onboarding" aria-labelledby="onboarding-heading">
      <h2 id="onboarding-heading">Getting started</h2>
      <p className="muted">
        {left} of {steps.length} steps left. Each is ticked here once it is done.
      </p>
      <ol>
        {steps.map((step) => (
          <li key={step.id} className={step.done ? 'done' : undefined}>
            <span aria-hidden="true" className="onboarding-mark">
              {step.done ? '✓' : '○'}
            </span>{' '}
            <span>
              {step.title}
              <span className="visually-hidden">{step.done ? ' (done)' : ' (to do)'}</span>
              {!step.done && step.links.length > 0 && (
                <>
                  {': '}
                  {step.links.map((link, index) => (
                    <span key={link.to}>
                      {index > 0 && ' or '}
                      <Link to={link.to}>{link.label}</Link>
                    </span>
                  ))}
                </>
              )}
            </span>
          </li>
        ))}
      </ol>
      <button type="button" onClick={dismiss}>
        Dismiss the checklist
      </button>
    </section>
  );
}
