import { randomUUID } from 'node:crypto';
import { ROLES, ROLE_PERMISSIONS } from '../src/common/auth/permissions';
import { ROUTE_ACCESS, type RouteAccess } from '../src/common/auth/route-access';
import { MetadataScanner, ModulesContainer, Reflector } from '@nestjs/core';
import { API_PREFIX } from '../src/create-app';
import { PATH_METADATA, METHOD_METADATA } from '@nestjs/common/constants';
import { RequestMethod } from '@nestjs/common';
import { bearer, createScanner, createTestApp, createUser, type TestApp } from './support/test-app';

/** The public routes of CONTRACT section 2. Anything else must refuse a request without a token. */
const PUBLIC_ROUTES = [
  /^POST \/api\/v1\/auth\/login$/,
  /^GET \/api\/v1\/health$/,
  /^GET \/api\/v1\/calendar\/u\/.+$/,
  /^[A-Z]+ \/api-docs(\/.*)?$/,
];

interface RegisteredRoute {
  method: string;
  path: string;
}

/** Every route Express will actually serve, read from its router. */
function registeredRoutes(t: TestApp): RegisteredRoute[] {
  const express = t.app.getHttpAdapter().getInstance() as {
    router: { stack: { route?: { path: string; methods: Record<string, boolean> } }[] };
  };
  return express.router.stack.flatMap((layer) =>
    layer.route
      ? Object.keys(layer.route.methods)
          .filter((m) => m !== '_all')
          .map((method) => ({ method: method.toUpperCase(), path: layer.route!.path }))
      : [],
  );
}

/** Every controller handler, keyed like the router (`GET /api/v1/users/:id`), with its declared access rule. */
function declaredRoutes(t: TestApp): Map<string, RouteAccess | undefined> {
  const reflector = t.app.get(Reflector);
  const scanner = new MetadataScanner();
  const declared = new Map<string, RouteAccess | undefined>();
  for (const module of t.app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as object;
      const prototype = (controller as { prototype: object }).prototype;
      for (const name of scanner.getAllMethodNames(prototype)) {
        const handler = (prototype as Record<string, () => unknown>)[name];
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        if (method === undefined) continue;
        const segments = [
          API_PREFIX,
          Reflect.getMetadata(PATH_METADATA, controller),
          Reflect.getMetadata(PATH_METADATA, handler),
        ] as string[];
        const path = `/${segments
          .map((segment) => segment.replace(/^\/+|\/+$/g, ''))
          .filter(Boolean)
          .join('/')}`;
        declared.set(
          `${RequestMethod[method]} ${path}`,
          reflector.getAllAndOverride<RouteAccess | undefined>(ROUTE_ACCESS, [handler, controller as () => void]),
        );
      }
    }
  }
  return declared;
}

/** A concrete URL for a route pattern: any id, fingerprint or wildcard will do. */
function concrete(path: string): string {
  return path
    .replace(/:fingerprint\b/g, 'a'.repeat(64))
    .replace(/:[A-Za-z]+/g, randomUUID())
    .replace(/\*[A-Za-z]*/g, 'feed.ics');
}

const isPublic = (route: RegisteredRoute) => PUBLIC_ROUTES.some((pattern) => pattern.test(`${route.method} ${route.path}`));

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

  it('makes public only the routes CONTRACT section 2 lists', () => {
    const publicDeclared = [...declaredRoutes(t)].filter(([, access]) => access?.kind === 'public').map(([route]) => route);
    expect(publicDeclared.sort()).toEqual(['GET /api/v1/health', 'POST /api/v1/auth/login']);
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
      for (const role of ROLES.filter((r) => !ROLE_PERMISSIONS[r].has(access.permission))) {
        const response = await t.http[method](url).set(bearer(tokens[role])).send({});
        if (response.status !== 403) failures.push(`${route.method} ${route.path} as ${role}: ${response.status}`);
      }
      const asScanner = await t.http[method](url).set(bearer(scanner.token)).send({});
      if (asScanner.status !== 403) failures.push(`${route.method} ${route.path} as a scanner: ${asScanner.status}`);
    }
    expect(failures).toEqual([]);
  });
});
