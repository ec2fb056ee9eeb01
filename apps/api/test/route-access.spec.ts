import { ROLES, ROLE_PERMISSIONS } from '../src/common/auth/permissions';
import { concrete, declaredRoutes, isPublic, registeredRoutes } from './support/routes';
import { bearer, createScanner, createTestApp, createUser, type TestApp } from './support/test-app';
describe('route access', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('finds the routes it walks', () => {
    const routes = registeredRoutes(t);
    expect(routes.length).toBeGreaterThan(10);
    expect(routes).toContainEqual({ method: 'POST', path: '/api/v1/auth/login' });
    expect(routes).toContainEqual({ method: 'DELETE', path: '/api/v1/users/:id' });
  });

  it('declares an access rule on every controller handler', () => {
    const declared = declaredRoutes(t);
    expect(declared.size).toBeGreaterThan(10);
    expect([...declared].filter(([, access]) => access === undefined).map(([route]) => route)).toEqual([]);
  });

  it('makes public only the routes docs/api-contract.md sections 2 and 9 list', () => {
    const publicDeclared = [...declaredRoutes(t)].filter(([, access]) => access?.kind === 'public').map(([route]) => route);
    expect(publicDeclared.sort()).toEqual([
      'GET /api/v1/auth/oidc',
      'GET /api/v1/auth/oidc/callback',
      'GET /api/v1/auth/oidc/login',
      'GET /api/v1/calendar/u/:token',
      'GET /api/v1/calendar/u/:token/*file',
      'GET /api/v1/health',
      'POST /api/v1/auth/login',
      'POST /api/v1/auth/oidc/exchange',
    ]);
  });

  it('refuses every other route without a token (401) and with a garbage token (401)', async () => {
    const failures: string[] = [];
    for (const route of registeredRoutes(t).filter((r) => !isPublic(r))) {
      const url = concrete(route.path);
      const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
      const anonymous = await t.http[method](url).send({});
      if (anonymous.status !== 401) failures.push(`${route.method} ${route.path} without a token: ${anonymous.status}`);
      const garbage = await t.http[method](url).set('Authorization', 'Bearer garbage').send({});
      if (garbage.status !== 401) failures.push(`${route.method} ${route.path} with a garbage token: ${garbage.status}`);
    }
    expect(failures).toEqual([]);
  });

  it('answers 403 to every role that lacks the route permission, and to scanner tokens on user routes', async () => {
    const tokens = Object.fromEntries(await Promise.all(ROLES.map(async (role) => [role, (await createUser(t, role)).token] as const)));
    const scanner = await createScanner(t);
    const failures: string[] = [];
    const declared = declaredRoutes(t);
    for (const route of registeredRoutes(t).filter((r) => !isPublic(r))) {
      const access = declared.get(`${route.method} ${route.path}`);
      if (access === undefined) failures.push(`${route.method} ${route.path} has no declared access rule`);
      if (access?.kind !== 'permission') continue;
      const url = concrete(route.path);
      const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
      // A route naming several permissions needs all of them: a role lacking any one is refused.
      for (const role of ROLES.filter((r) => !access.permissions.every((permission) => ROLE_PERMISSIONS[r].has(permission)))) {
        const response = await t.http[method](url).set(bearer(tokens[role])).send({});
        if (response.status !== 403) failures.push(`${route.method} ${route.path} as ${role}: ${response.status}`);
      }
      const asScanner = await t.http[method](url).set(bearer(scanner.token)).send({});
      if (asScanner.status !== 403) failures.push(`${route.method} ${route.path} as a scanner: ${asScanner.status}`);
    }
    expect(failures).toEqual([]);
  });
});
