import { useEffect, useId, useState, type KeyboardEvent } from 'react';
import { Link, useLocation } from 'react-router';
import { api, errorMessage, type Schemas, unreachable } from '../../api/client';
import { useAuth } from '../../auth/auth-context';
import './search.css';

type Item = Schemas['CertificateSearchItemDto'] | Schemas['EndpointSearchItemDto'];

/** The API's shortest query (GET /api/v1/search: `q` of 2 to 200 characters). */
const MIN_LENGTH = 2;
const MAX_LENGTH = 200;
const RESULTS = 8;
/** Typing pauses this long before a query goes out, so a word costs one request, not one per key. */
const PAUSE_MS = 250;

/**
 * The header's search over certificates (fingerprint prefix, names) and endpoints (name, DNS name,
 * metadata URL) through GET /api/v1/search; each result links to its screen. Offered to roles
 * that may view both, as the route requires.
 */
export function HeaderSearch() {
  const { can } = useAuth();
  const id = useId();
  const { pathname } = useLocation();
  const [text, setText] = useState('');
  const [open, setOpen] = useState(false);
  const [answer, setAnswer] = useState<{ q: string; items: Item[]; total: number; error?: string } | null>(null);
  const q = text.trim();

  useEffect(() => {
    if (q.length < MIN_LENGTH) return;
    let current = true;
    const timer = window.setTimeout(() => {
      api
        .GET('/api/v1/search', { params: { query: { q, limit: RESULTS } } })
        .then(({ data, error, response }) => {
          if (!current) return;
          if (data) setAnswer({ q, items: data.items, total: data.totalCount });
          else setAnswer({ q, items: [], total: 0, error: errorMessage(error, response) });
        })
        .catch((error: unknown) => {
          if (current) setAnswer({ q, items: [], total: 0, error: unreachable(error) });
        });
    }, PAUSE_MS);
    return () => {
      current = false;
      window.clearTimeout(timer);
    };
  }, [q]);

  // A result followed: the list closes and the box empties for the next search.
  useEffect(() => {
    setOpen(false);
    setText('');
    setAnswer(null);
  }, [pathname]);

  if (!can('endpoints:view') || !can('certs:view')) return null;

  const shown = open && q.length >= MIN_LENGTH;
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Escape') setOpen(false);
  };
  return (
    <div className="header-search" onKeyDown={onKeyDown}>
      <label htmlFor={`${id}-q`} className="visually-hidden">
        Find a certificate or endpoint
      </label>
      <input
        id={`${id}-q`}
        type="search"
        placeholder="Find certificate or endpoint"
        autoComplete="off"
        maxLength={MAX_LENGTH}
        aria-describedby={`${id}-status`}
        value={text}
        onChange={(event) => {
          setText(event.target.value);
          setOpen(true);
        }}
        onFocus={() => setOpen(true)}
      />
      <div className={shown ? 'search-panel' : 'visually-hidden'}>
        <p id={`${id}-status`} role="status">
          {!shown ? '' : answer?.q !== q ? 'Searching…' : (answer.error ?? resultsText(answer.items.length, answer.total))}
        </p>
        {shown && answer?.q === q && answer.items.length > 0 && (
          <ul aria-label="Search results">
            {answer.items.map((item) => (
              <li key={item.kind === 'certificate' ? `c-${item.fingerprint}` : `e-${item.id}`}>
                {item.kind === 'certificate' ? (
                  <Link to={`/certificates/${item.fingerprint}`}>
                    <span className="kind">Certificate</span> {item.commonName ?? item.sans[0] ?? item.fingerprint.slice(0, 16)}
                  </Link>
                ) : (
                  <Link to={`/endpoints/${item.id}`}>
                    <span className="kind">Endpoint</span> {item.name}
                    {item.dnsName && <span className="muted"> {item.dnsName}</span>}
                  </Link>
                )}
              </li>
            ))}
          </ul>
        )}
      </div>
    </div>
  );
}

function resultsText(shown: number, total: number): string {
  if (total === 0) return 'Nothing matches.';
  return shown < total ? `The first ${shown} of ${total} matches.` : `${total} ${total === 1 ? 'match' : 'matches'}.`;
}
