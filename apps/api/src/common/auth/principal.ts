import type { Role } from './permissions';

/** A signed-in user, through a JWT or one of their API keys. The role is read fresh per request. */
export interface UserPrincipal {
  kind: 'user';
  userId: string;
  email: string;
  role: Role;
  via: 'jwt' | 'api-key';
}

/** A scanner agent, through its scanner token. */
export interface ScannerPrincipal {
  kind: 'scanner';
  scannerId: string;
}

export type Principal = UserPrincipal | ScannerPrincipal;
