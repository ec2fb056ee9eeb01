import { useEffect, useRef, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { api, errorMessage, unreachable } from '../../api/client';
import { safeRedirect, useAuth } from '../../auth/auth-context';

/** `/login/oidc?code=...&redirect=...`: the provider's sign-in ends here; the one-time code becomes a session. */
export function OidcCallbackPage() {
  const { signIn } = useAuth();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const [error, setError] = useState<string | null>(null);
  const started = useRef(false);

  useEffect(() => {
    document.title = 'Signing in · Certkeeper';
    // The code is valid once: never exchange it twice (React's development double effects included).
    if (started.current) return;
    started.current = true;
    const code = params.get('code');
    if (!code) {
      setError('The sign-in link has no code.');
      return;
    }
    void api
      .POST('/api/v1/auth/oidc/exchange', { body: { code } })
      .then(async ({ data, error: failure, response }) => {
        if (!data) {
          setError(errorMessage(failure, response));
          return;
        }
        signIn(data);
        await navigate(safeRedirect(params.get('redirect')), { replace: true });
      })
      .catch((failure: unknown) => setError(unreachable(failure)));
  }, [params, navigate, signIn]);

  return (
    <main className="sign-in" id="main">
      <h1>Certkeeper</h1>
      <div className="card">
        {error ? (
          <>
            <p className="error" role="alert">
              {error}
            </p>
            <Link to="/login">Back to sign-in</Link>
          </>
        ) : (
          <p role="status">Signing in…</p>
        )}
      </div>
    </main>
  );
}
