import type { Role } from '../api/client';

/**
 * The role table of the API contract (section 2), used only to decide which screens and actions
 * to offer; the API enforces it on every request whatever the interface shows.
 */
export type Permission =
  | 'endpoints:view'
  | 'certs:view'
  | 'tags:view'
  | 'scanners:view'
  | 'self:access'
  | 'endpoints:edit'
  | 'certs:edit'
  | 'settings:view'
  | 'discovery:view'
  | 'discovery:edit'
  | 'scanners:edit'
  | 'settings:edit'
  | 'users:view'
  | 'users:edit'
  | 'audit:view';

const VIEWER: Permission[] = ['endpoints:view', 'certs:view', 'tags:view', 'scanners:view', 'self:access'];
const OPERATOR: Permission[] = [...VIEWER, 'endpoints:edit', 'certs:edit', 'settings:view', 'discovery:view', 'discovery:edit'];
const ADMIN: Permission[] = [...OPERATOR, 'scanners:edit', 'settings:edit', 'users:view', 'users:edit', 'audit:view'];

const BY_ROLE: Record<Role, ReadonlySet<Permission>> = {
  viewer: new Set(VIEWER),
  operator: new Set(OPERATOR),
  admin: new Set(ADMIN),
};

export function can(role: Role, permission: Permission): boolean {
  return BY_ROLE[role].has(permission);
}
