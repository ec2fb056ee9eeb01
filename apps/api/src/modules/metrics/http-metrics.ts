import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { AppMetrics } from './app-metrics';

/** The route label of a response no route served: 404s, refusals before routing, Swagger UI's static files. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * The template of the route that served the request (`/api/v1/endpoints/:id`), read when the
 * response is finished: Express sets `req.route` when a route matches, and Nest's guards, pipes
 * and exception filters all run inside that route, so their 401s, 403s, 400s and 500s carry it.
 * Never the raw path: ids would explode the series count, and the calendar feed's path is a
 * credential (`/api/v1/calendar/u/:token/*file`).
 */
export function routeTemplate(req: Request): string {
  const route = req.route as { path?: unknown } | undefined;
  if (!route || typeof route.path !== 'string') return UNMATCHED_ROUTE;
  return `${req.baseUrl}${route.path}`;
}

/**
 * Express middleware, installed first, that counts every finished response and observes its
 * duration by route template. A response the client abandoned before it finished is not counted.
 */
export function httpMetricsMiddleware(metrics: AppMetrics): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = routeTemplate(req);
      metrics.httpRequests.inc({ method: req.method, route, status: String(res.statusCode) });
      metrics.httpDuration.observe({ method: req.method, route }, seconds);
    });
    next();
  };
}
