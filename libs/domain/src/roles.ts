/**
 * The roles and what each may do (docs/api-contract.md section 2). The API enforces this table on
 * every request; the web interface reads the same table to offer only the actions a role has. It
 * has no imports, so the browser bundle can take it alone (`@certkeeper/domain/roles`).
 */
export const ROLES = ['viewer', 'operator', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export const PERMISSIONS = [
  'endpoints:view',
  'certs:view',
  'tags:view',
  'scanners:view',
  'self:access',
  'endpoints:edit',
  'certs:edit',
  'settings:view',
  'discovery:view',
  'discovery:edit',
  'scanners:edit',
  'settings:edit',
  'users:view',
  'users:edit',
  'audit:view',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

const VIEWER: readonly Permission[] = ['endpoints:view', 'certs:view', 'tags:view', 'scanners:view', 'self:access'];
const OPERATOR: readonly Permission[] = [...VIEWER, 'endpoints:edit', 'certs:edit', 'settings:view', 'discovery:view', 'discovery:edit'];
const ADMIN: readonly Permission[] = [...OPERATOR, 'scanners:edit', 'settings:edit', 'users:view', 'users:edit', 'audit:view'];

export const ROLE_PERMISSIONS: Readonly<Record<Role, ReadonlySet<Permission>>> = {
  viewer: new Set(VIEWER),
  operator: new Set(OPERATOR),
  admin: new Set(ADMIN),
};

export function roleHasPermission(role: Role, permission: Permission): boolean {
  return ROLE_PERMISSIONS[role].has(permission);
}
