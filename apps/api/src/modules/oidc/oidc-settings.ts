import { isIP } from 'node:net';
import { ROLES, type Role } from '../../common/auth/permissions';

/** The settings key the OIDC configuration is stored under (docs/api-contract.md section 9). */
export const OIDC_SETTINGS_KEY = 'oidc';

export type RoleMapping = Record<Role, string[]>;

/** As stored: the client secret sealed with the ENCRYPTION_KEY, never in clear. */
export interface StoredOidcSettings {
  enabled: boolean;
  issuerUrl: string | null;
  clientId: string | null;
  sealedClientSecret: string | null;
  scopes: string;
  emailClaim: string;
  nameClaim: string;
  roleClaim: string | null;
  roleMapping: RoleMapping;
  defaultRole: Role | null;
  buttonLabel: string;
}

export const DEFAULT_SCOPES = 'openid email profile';
export const DEFAULT_BUTTON_LABEL = 'Sign in with SSO';

export const UNCONFIGURED_OIDC: StoredOidcSettings = {
  enabled: false,
  issuerUrl: null,
  clientId: null,
  sealedClientSecret: null,
  scopes: DEFAULT_SCOPES,
  emailClaim: 'email',
  nameClaim: 'name',
  roleClaim: null,
  roleMapping: { admin: [], operator: [], viewer: [] },
  defaultRole: null,
  buttonLabel: DEFAULT_BUTTON_LABEL,
};

/** What a sign-in needs: enabled, complete, the secret opened. */
export interface ActiveOidcSettings {
  issuerUrl: string;
  clientId: string;
  clientSecret: string | null;
  scopes: string;
  emailClaim: string;
  nameClaim: string;
  roleClaim: string | null;
  roleMapping: RoleMapping;
  defaultRole: Role | null;
}

const LOOPBACK_NAMES = new Set(['localhost']);

/** True for 127.0.0.0/8, ::1 and `localhost`: the only hosts an http issuer may live on. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (LOOPBACK_NAMES.has(host) || host.endsWith('.localhost')) return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1' || host === '0:0:0:0:0:0:0:1';
}

/**
 * Why `value` cannot be an issuer URL, or null. https, or http on a loopback host only (a provider
 * on the same machine, tests): over plain http anyone on the path could forge the discovery
 * document, its JWKS and so every ID token. No query, fragment or credentials (OIDC Discovery).
 */
export function issuerUrlProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'issuerUrl must be an absolute https URL';
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    return 'issuerUrl must be an https URL (http only for a loopback host such as 127.0.0.1)';
  }
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    return 'issuerUrl must not carry a query, a fragment or credentials';
  }
  return null;
}

/** Whether a Configuration for this issuer may speak plain http (loopback only, see issuerUrlProblem). */
export function allowsPlainHttp(issuerUrl: string): boolean {
  const url = new URL(issuerUrl);
  return url.protocol === 'http:' && isLoopbackHost(url.hostname);
}

/** Highest role first: the mapping's winner is the first role whose list meets the claim. */
const ROLES_HIGHEST_FIRST: readonly Role[] = [...ROLES].reverse();

/**
 * The role the claim's value(s) map to, highest wins, or null when none maps. A string claim is
 * one value; an array claim its string members; anything else maps nothing. Compared exactly.
 */
export function mappedRole(claimValue: unknown, mapping: RoleMapping): Role | null {
  const values = new Set(
    typeof claimValue === 'string' ? [claimValue] : Array.isArray(claimValue) ? claimValue.filter((v) => typeof v === 'string') : [],
  );
  return ROLES_HIGHEST_FIRST.find((role) => mapping[role].some((entry) => values.has(entry))) ?? null;
}

/**
 * The value of claim `name`: the top-level claim of that name when there is one (names such as
 * `https://example.com/roles` contain dots), else the dotted path into nested objects, as
 * Keycloak's `realm_access.roles`. Undefined when absent.
 */
export function claimValue(claims: Record<string, unknown>, name: string): unknown {
  if (Object.hasOwn(claims, name)) return claims[name];
  let current: unknown = claims;
  for (const segment of name.split('.')) {
    if (typeof current !== 'object' || current === null || Array.isArray(current) || !Object.hasOwn(current, segment)) return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}
