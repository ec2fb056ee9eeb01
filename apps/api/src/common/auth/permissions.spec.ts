import { PERMISSIONS, ROLE_PERMISSIONS, roleHasPermission } from './permissions';

describe('role matrix (docs/api-contract.md section 2)', () => {
  const table: [string, boolean, boolean, boolean][] = [
    // permission, viewer, operator, admin
    ['endpoints:view', true, true, true],
    ['certs:view', true, true, true],
    ['tags:view', true, true, true],
    ['scanners:view', true, true, true],
    ['self:access', true, true, true],
    ['endpoints:edit', false, true, true],
    ['certs:edit', false, true, true],
    ['settings:view', false, true, true],
    ['discovery:view', false, true, true],
    ['discovery:edit', false, true, true],
    ['scanners:edit', false, false, true],
    ['settings:edit', false, false, true],
    ['users:view', false, false, true],
    ['users:edit', false, false, true],
    ['audit:view', false, false, true],
  ];

  it('covers every permission', () => {
    expect(table.map(([permission]) => permission).sort()).toEqual([...PERMISSIONS].sort());
  });

  it.each(table)('%s: viewer %s, operator %s, admin %s', (permission, viewer, operator, admin) => {
    const p = permission as (typeof PERMISSIONS)[number];
    expect([roleHasPermission('viewer', p), roleHasPermission('operator', p), roleHasPermission('admin', p)]).toEqual([
      viewer,
      operator,
      admin,
    ]);
  });

  it('grants nothing beyond the table', () => {
    expect(ROLE_PERMISSIONS.admin.size).toBe(PERMISSIONS.length);
  });
});
