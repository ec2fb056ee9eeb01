import type { Role } from './permissions';

/** What a user signed in with: a session's JWT (logout ends it) or one of their API keys. */
export type UserCredential = { kind: 'session'; sessionId: string } | { kind: 'api-key'; apiKeyId: string; expiresAt: Date | null };

/** A signed-in user, through a JWT or one of their API keys. The role is read fresh per request. */
export interface UserPrincipal {
  kind: 'user';
  userId: string;
  email: string;
  role: Role;
  credential: UserCredential;
}

/** A scanner agent, through its scanner token. */
export interface ScannerPrincipal {
  kind: 'scanner';
  scannerId: string;
}

export type Principal = UserPrincipal | ScannerPrincipal;
