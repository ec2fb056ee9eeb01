import { useEffect, useState, type FormEvent } from 'react';
import { Navigate, useLocation, useNavigate, useSearchParams } from 'react-router';
import { api, errorMessage, type Schemas, unreachable } from '../../api/client';
import { safeRedirect, type SignInNotice, useAuth } from '../../auth/auth-context';

type OidcStatus = Schemas['OidcStatusDto'];

export function SignInPage() {
  const { session, signIn } = useAuth();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const redirect = safeRedirect(params.get('redirect'));
  const notice = (useLocation().state as SignInNotice | null)?.notice;
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [oidc, setOidc] = useState<OidcStatus | null>(null);

  useEffect(() => {
    document.title = 'Sign in · Certkeeper';
    let current = true;
    void api.GET('/api/v1/auth/oidc').then(({ data }) => {
      if (current && data) setOidc(data);
    });
    return () => {
      current = false;
    };
  }, []);

  if (session) return <Navigate to={redirect} replace />;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const { data, error: failure, response } = await api.POST('/api/v1/auth/login', { body: { email, password } });
      if (data) {
        signIn(data);
        await navigate(redirect, { replace: true });
        return;
      }
      setError(errorMessage(failure, response));
    } catch (failure) {
      setError(unreachable(failure));
    } finally {
      setBusy(false);
    }
  };

  const oidcHref = oidc?.enabled
    ? `${oidc.loginUrl}${oidc.loginUrl.includes('?') ? '&' : '?'}redirect=${encodeURIComponent(redirect)}`
    : null;

  return (
    <main className="sign-in" id="main">
      <h1>Certkeeper</h1>
      <form className="card" onSubmit={(event) => void submit(event)} aria-describedby={error ? 'sign-in-error' : undefined}>
        <h2>Sign in</h2>
        {notice && <p role="status">{notice}</p>}
        <label htmlFor="email">E-mail</label>
        <input id="email" type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
        <label htmlFor="password">Password</label>
        <input
          id="password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
        {error && (
          <p className="error" id="sign-in-error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        {oidcHref && (
          <a className="button" href={oidcHref}>
            {oidc?.buttonLabel || 'Sign in with single sign-on'}
          </a>
        )}
      </form>
    </main>
  );
}
