import type { LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module';
import type { Clock } from './common/clock';
import { accessLog } from './common/http/access-log';
import { refuseNulInUrl } from './common/http/nul-in-url';
import { assignRequestId } from './common/http/request-id';
import { securityHeaders } from './common/http/security-headers';
import { createValidationPipe } from './common/validation/validation-pipe';
import type { AppConfig } from './config/app-config';
import { AppMetrics } from './modules/metrics/app-metrics';
import { httpMetricsMiddleware } from './modules/metrics/http-metrics';
import { buildOpenApiDocument, serveOpenApi } from './openapi/openapi';
import { serveWebInterface } from './web-interface';

export const API_PREFIX = 'api/v1';
/** Served at the root, outside API_PREFIX: `/metrics`, where Prometheus scrapes by default (docs/api-contract.md section 12). */
export const UNPREFIXED_PATHS = ['metrics'];

export interface CreateAppOptions {
  logger?: LoggerService | false;
  clock?: Clock;
  /** Builds the module graph without instantiating providers (no database): enough for OpenAPI export. */
  preview?: boolean;
}

/**
 * Everything between a request and a controller: request ids, access log, security headers, the
 * versioned prefix and validation. Shared by the server, tests and tools. Bodies are read later,
 * by BodyParsingInterceptor, once the guard has accepted the token.
 */
export function configureHttpPipeline(app: NestExpressApplication, config: Pick<AppConfig, 'publicUrl' | 'trustProxy'>): void {
  app.disable('x-powered-by');
  // Which proxies may name the client's address, for the per-address sign-in limits (TRUST_PROXY).
  app.set('trust proxy', config.trustProxy ?? false);
  app.use(assignRequestId);
  app.use(accessLog);
  app.use(securityHeaders(config.publicUrl));
  app.use(refuseNulInUrl);
  app.setGlobalPrefix(API_PREFIX, { exclude: UNPREFIXED_PATHS });
  app.useGlobalPipes(createValidationPipe());
}

export async function createApp(config: AppConfig, options: CreateAppOptions = {}): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, { clock: options.clock }), {
    bodyParser: false,
    logger: options.logger,
    abortOnError: false,
    preview: options.preview,
  });
  // First of all middleware, so every response is counted, refusals before routing included.
  if (!options.preview) app.use(httpMetricsMiddleware(app.get(AppMetrics)));
  configureHttpPipeline(app, config);
  // Built at its first request, not at every start (docs/decisions/0014-fast-start.md).
  serveOpenApi(app, () => buildOpenApiDocument(app));
  // The web interface at `/`, outside /api, /api-docs and /metrics (section 14).
  if (!options.preview) serveWebInterface(app);
  return app;
}
