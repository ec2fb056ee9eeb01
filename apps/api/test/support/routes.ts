import { randomUUID } from 'node:crypto';
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { MetadataScanner, ModulesContainer, Reflector } from '@nestjs/core';
import { ROUTE_ACCESS, type RouteAccess } from '../../src/common/auth/route-access';
import { API_PREFIX, UNPREFIXED_PATHS } from '../../src/create-app';
import type { TestApp } from './test-app';

/** The public routes of docs/api-contract.md section 2. Anything else must refuse a request without a token. */
export const PUBLIC_ROUTES = [
  /^POST \/api\/v1\/auth\/login$/,
  // OIDC sign-in (docs/api-contract.md section 9): the browser has no token yet.
  /^GET \/api\/v1\/auth\/oidc(\/login|\/callback)?$/,
  /^POST \/api\/v1\/auth\/oidc\/exchange$/,
  /^GET \/api\/v1\/health$/,
  /^GET \/api\/v1\/calendar\/u\/.+$/,
  /^[A-Z]+ \/api-docs(\/.*)?$/,
];

export interface RegisteredRoute {
  method: string;
  path: string;
}

/** Every route Express will actually serve, read from its router. */
export function registeredRoutes(t: TestApp): RegisteredRoute[] {
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
export function declaredRoutes(t: TestApp): Map<string, RouteAccess | undefined> {
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
        const controllerPath = Reflect.getMetadata(PATH_METADATA, controller) as string;
        const segments = [
          UNPREFIXED_PATHS.includes(controllerPath.replace(/^\/+|\/+$/g, '')) ? '' : API_PREFIX,
          controllerPath,
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
export function concrete(path: string): string {
  return path
    .replace(/:fingerprint\b/g, 'a'.repeat(64))
    .replace(/:[A-Za-z]+/g, randomUUID())
    .replace(/\*[A-Za-z]*/g, 'feed.ics');
}

export const isPublic = (route: RegisteredRoute) => PUBLIC_ROUTES.some((pattern) => pattern.test(`${route.method} ${route.path}`));
