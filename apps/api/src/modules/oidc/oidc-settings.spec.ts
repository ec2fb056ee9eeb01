import { claimValue, issuerUrlProblem, isLoopbackHost, mappedRole } from './oidc-settings';

describe('OIDC settings rules', () => {
  it('accepts https issuers and http only on loopback', () => {
    expect(issuerUrlProblem('https://idp.example.com/realms/x')).toBeNull();
    expect(issuerUrlProblem('http://127.0.0.1:8080')).toBeNull();
    expect(issuerUrlProblem('http://[::1]:8080/')).toBeNull();
    expect(issuerUrlProblem('http://localhost:9000')).toBeNull();
    expect(issuerUrlProblem('http://idp.example.com')).toMatch(/https/);
    expect(issuerUrlProblem('ftp://idp.example.com')).toMatch(/https/);
    expect(issuerUrlProblem('not a url')).toMatch(/absolute/);
    expect(issuerUrlProblem('https://idp.example.com/?a=b')).toMatch(/query/);
    expect(isLoopbackHost('127.10.0.1')).toBe(true);
    expect(isLoopbackHost('10.0.0.1')).toBe(false);
  });

  it('maps claim values to the highest role listed', () => {
    const mapping = { admin: ['ck-admins'], operator: ['ck-ops'], viewer: ['staff'] };
    expect(mappedRole(['staff', 'ck-ops'], mapping)).toBe('operator');
    expect(mappedRole(['ck-admins', 'staff'], mapping)).toBe('admin');
    expect(mappedRole('staff', mapping)).toBe('viewer');
    expect(mappedRole(['other'], mapping)).toBeNull();
    expect(mappedRole(undefined, mapping)).toBeNull();
    expect(mappedRole([{ a: 1 }, 7], mapping)).toBeNull();
  });

  it('reads claims by name, then by dotted path', () => {
    const claims = { groups: ['a'], 'https://example.com/roles': ['b'], realm_access: { roles: ['c'] }, 'a.b': 1, a: { b: 2 } };
    expect(claimValue(claims, 'groups')).toEqual(['a']);
    expect(claimValue(claims, 'https://example.com/roles')).toEqual(['b']);
    expect(claimValue(claims, 'realm_access.roles')).toEqual(['c']);
    expect(claimValue(claims, 'a.b')).toBe(1);
    expect(claimValue(claims, 'realm_access.missing')).toBeUndefined();
    expect(claimValue(claims, 'groups.length')).toBeUndefined();
    expect(claimValue(claims, 'toString')).toBeUndefined();
  });
});
