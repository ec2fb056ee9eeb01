import type { components } from '@certkeeper/api-client';

export type SessionUser = components['schemas']['LoginUserDto'];
export interface Session {
  token: string;
  expiresAt: string;
  user: SessionUser;
}

/**
 * The JWT lives in sessionStorage (docs/decisions/0011-web-interface.md): it ends with the tab,
 * is not sent automatically with requests (no CSRF surface), and the strict CSP (scripts from
 * this origin only) is what protects it from injected scripts. Other tabs of this origin get it
 * over a BroadcastChannel (docs/decisions/0020-web-session-across-tabs.md), never from storage
 * that outlives the tabs.
 */
const KEY = 'certkeeper.session';

export function readSession(): Session | null {
  const raw = window.sessionStorage.getItem(KEY);
  if (!raw) return null;
  try {
    const session = JSON.parse(raw) as Session;
    if (Date.parse(session.expiresAt) <= Date.now()) {
      clearSession();
      return null;
    }
    return session;
  } catch {
    clearSession();
    return null;
  }
}

export function saveSession(session: Session): void {
  window.sessionStorage.setItem(KEY, JSON.stringify(session));
}

export function clearSession(): void {
  window.sessionStorage.removeItem(KEY);
}

/**
 * What the tabs of this origin tell each other: a tab without a session asks, a signed-in tab
 * answers with its session; a sign-in is offered to the tabs without one; the end of a session
 * (sign-out, a 401, a new password) is announced with its token, so a tab that has since signed
 * in with another session keeps it.
 */
export type SessionMessage = { kind: 'ask' } | { kind: 'session'; session: Session } | { kind: 'ended'; token: string; notice: string };

/** How long a new tab waits for a signed-in tab to answer before it shows sign-in. */
export const ASK_TIMEOUT_MS = 300;

// A BroadcastChannel reaches only documents of the same origin (HTML standard), in this browser
// profile. Opened on first use (the auth provider listens from the start), not on import: an open
// channel keeps a process alive where the web's modules are imported outside a page (unit tests).
let channel: BroadcastChannel | null | undefined;
function sessionChannel(): BroadcastChannel | null {
  if (channel !== undefined) return channel;
  channel = typeof BroadcastChannel === 'undefined' ? null : new BroadcastChannel('certkeeper.session');
  // A signed-in tab answers a new tab's question.
  channel?.addEventListener('message', (event: MessageEvent<SessionMessage>) => {
    if (event.data?.kind !== 'ask') return;
    const session = readSession();
    if (session) tellOtherTabs({ kind: 'session', session });
  });
  return channel;
}

export function tellOtherTabs(message: SessionMessage): void {
  sessionChannel()?.postMessage(message);
}

/** Calls `listener` with each message another tab sends; returns the unsubscribe. */
export function listenToOtherTabs(listener: (message: SessionMessage) => void): () => void {
  const handler = (event: MessageEvent<SessionMessage>) => listener(event.data);
  const open = sessionChannel();
  open?.addEventListener('message', handler);
  return () => open?.removeEventListener('message', handler);
}

/**
 * A session from a signed-in tab of this origin, or null when none answers within
 * ASK_TIMEOUT_MS (or the browser has no BroadcastChannel). The session is kept in this tab.
 */
export function askOtherTabs(): Promise<Session | null> {
  return new Promise((resolve) => {
    if (!sessionChannel()) {
      resolve(null);
      return;
    }
    const stop = listenToOtherTabs((message) => {
      if (message.kind !== 'session' || Date.parse(message.session.expiresAt) <= Date.now()) return;
      finish(message.session);
    });
    const timer = window.setTimeout(() => finish(null), ASK_TIMEOUT_MS);
    function finish(session: Session | null) {
      window.clearTimeout(timer);
      stop();
      if (session) saveSession(session);
      resolve(session);
    }
    tellOtherTabs({ kind: 'ask' });
  });
}
