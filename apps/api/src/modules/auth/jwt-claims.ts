/** Claims of the JWTs this service issues. Only the subject is trusted; the role is read from the database. */
export interface JwtClaims {
  sub: string;
  iat: number;
  exp: number;
}

export const JWT_ISSUER = 'certkeeper';
export const JWT_AUDIENCE = 'certkeeper-api';
export const JWT_ALGORITHM = 'HS256';
