import type { Request } from 'express';

export const API_KEY_PREFIX = 'stx_p_';
export const SCANNER_TOKEN_PREFIX = 'stx_s_';

/** The token of an `Authorization: Bearer <token>` header, or null when absent or malformed. */
export function bearerToken(req: Request): string | null {
  const header = req.headers.authorization;
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1] : null;
}

export type TokenKind = 'jwt' | 'api-key' | 'scanner';

/** The three kinds are told apart by prefix (docs/api-contract.md section 2). */
export function tokenKind(token: string): TokenKind {
  if (token.startsWith(API_KEY_PREFIX)) return 'api-key';
  if (token.startsWith(SCANNER_TOKEN_PREFIX)) return 'scanner';
  return 'jwt';
}
