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
 * this origin only) is what protects it from injected scripts.
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
