/**
 * Claims of the JWTs this service issues. Only the subject and the session are trusted; the role
 * is read from the database, and the session row decides whether the token still counts.
 */
export interface JwtClaims {
  sub: string;
  /** The session (a `sessions` row): deleting it ends this token at once, on every replica. */
  sid: string;
  iat: number;
  exp: number;
}

export const JWT_ISSUER = 'certkeeper';
export const JWT_AUDIENCE = 'certkeeper-api';
export const JWT_ALGORITHM = 'HS256';
