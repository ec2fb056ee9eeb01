import { createContext, startTransition, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { Navigate, useLocation, useNavigate } from 'react-router';
import { api, setUnauthorizedHandler, type Schemas } from '../api/client';
import { can, type Permission } from './permissions';
import { askOtherTabs, clearSession, listenToOtherTabs, readSession, saveSession, tellOtherTabs, type Session } from './session';

export type Me = Schemas['MeResponseDto'];

interface AuthState {
  session: Session | null;
  /** True while a new tab waits for another signed-in tab to hand it the session. */
  asking: boolean;
  /** The caller as GET /api/v1/me describes them (role included); null until loaded. */
  me: Me | null;
  signIn: (session: Session) => void;
  signOut: () => Promise<void>;
  /** The API already ended this session (a new password): forget it here, and say why at sign-in. */
  endSession: (notice: string) => void;
  can: (permission: Permission) => boolean;
}

const AuthContext = createContext<AuthState | null>(null);

export function useAuth(): AuthState {
  const auth = useContext(AuthContext);
  if (!auth) throw new Error('useAuth outside AuthProvider');
  return auth;
}

/** Where sign-in sends the person back to: a path of this app, never another origin. */
export function safeRedirect(raw: string | null): string {
  // `//host` and `/\host` name another origin in browsers.
  if (!raw || !raw.startsWith('/') || raw.startsWith('//') || raw.startsWith('/\\') || raw.startsWith('/login')) return '/';
  return raw;
}

/** What the sign-in page is told when the person was sent there by a change of theirs. */
export interface SignInNotice {
  notice: string;
}

export function loginPath(returnTo: string): string {
  return returnTo === '/' ? '/login' : `/login?redirect=${encodeURIComponent(returnTo)}`;
}

export function AuthProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<Session | null>(() => readSession());
  const [asking, setAsking] = useState(() => session === null);
  const [me, setMe] = useState<Me | null>(null);
  const navigate = useNavigate();

  // A tab opened from a link (or an alert e-mail) has no session of its own: another signed-in
  // tab of this origin hands it over (docs/decisions/0020-web-session-across-tabs.md).
  useEffect(() => {
    if (!asking) return;
    let current = true;
    void askOtherTabs().then((shared) => {
      if (!current) return;
      if (shared) setSession(shared);
      setAsking(false);
    });
    return () => {
      current = false;
    };
  }, [asking]);

  useEffect(() => {
    setUnauthorizedHandler((token) => {
      tellOtherTabs({ kind: 'ended', token, notice: 'Your session has ended: sign in again.' });
      setSession(null);
      setMe(null);
      const here = `${window.location.pathname}${window.location.search}`;
      if (!window.location.pathname.startsWith('/login')) void navigate(loginPath(here), { replace: true });
    });
  }, [navigate]);

  useEffect(() => {
    if (!session) return;
    let current = true;
    void api.GET('/api/v1/me').then(({ data }) => {
      if (current && data) setMe(data);
    });
    return () => {
      current = false;
    };
  }, [session]);

  const signIn = useCallback((next: Session) => {
    saveSession(next);
    setSession(next);
    tellOtherTabs({ kind: 'session', session: next });
  }, []);

  const leave = useCallback(
    (notice?: string) => {
      const ended = readSession();
      if (ended) tellOtherTabs({ kind: 'ended', token: ended.token, notice: notice ?? 'You signed out in another tab.' });
      clearSession();
      // In one transition with the router's navigation: otherwise RequireAuth renders first, without
      // a session, and sends the person to sign-in with a way back to the screen they just left.
      startTransition(() => {
        setSession(null);
        setMe(null);
        void navigate('/login', notice === undefined ? undefined : { state: { notice } satisfies SignInNotice });
      });
    },
    [navigate],
  );

  // What the other tabs say: a sign-in for a tab without a session, the end of the session this tab holds.
  useEffect(
    () =>
      listenToOtherTabs((message) => {
        if (message.kind === 'session' && !readSession()) {
          saveSession(message.session);
          setSession(message.session);
        } else if (message.kind === 'ended' && readSession()?.token === message.token) {
          clearSession();
          const here = `${window.location.pathname}${window.location.search}`;
          startTransition(() => {
            setSession(null);
            setMe(null);
            void navigate(loginPath(here), { replace: true, state: { notice: message.notice } satisfies SignInNotice });
          });
        }
      }),
    [navigate],
  );

  const signOut = useCallback(async () => {
    // The API ends this JWT at once; the local session goes whatever the answer.
    await api.POST('/api/v1/auth/logout').catch(() => undefined);
    leave();
  }, [leave]);

  const value = useMemo<AuthState>(
    () => ({
      session,
      asking,
      me,
      signIn,
      signOut,
      endSession: leave,
      // Before /me answers, the role from sign-in stands in (the API checks every request anyway).
      can: (permission) => {
        const role = me?.role ?? session?.user.role;
        return role !== undefined && can(role, permission);
      },
    }),
    [session, asking, me, signIn, signOut, leave],
  );
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

/** Screens behind sign-in: without a session, to sign-in and back here afterwards. */
export function RequireAuth({ children }: { children: ReactNode }) {
  const { session, asking } = useAuth();
  const location = useLocation();
  if (!session && asking) return <p role="status">Loading…</p>;
  if (!session) return <Navigate to={loginPath(`${location.pathname}${location.search}`)} replace />;
  return <>{children}</>;
}
