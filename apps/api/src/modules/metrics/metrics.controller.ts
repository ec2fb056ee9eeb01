import { Controller, Get, Logger, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags, ApiTooManyRequestsResponse } from '@nestjs/swagger';
import type { Response } from 'express';
import { RetryLaterException } from '../../common/http/retry-later.exception';
import { RequirePermission } from '../../common/auth/route-access';
import { MetricsService } from './metrics.service';
import { PROMETHEUS_CONTENT_TYPE } from './prometheus-text';

/**
 * A scrape holds a pooled database connection for as long as its client takes to read it, paused
 * while the client is behind (docs/api-contract.md section 12), so:
 * - `concurrent`: more scrapes at once than this (per process) are refused with 429;
 * - `stallMs`: a client that has not taken a chunk (a few megabytes) for this long is cut off, and
 *   the connection goes back. PostgreSQL's own statement timeout cannot end a statement whose
 *   rows wait to be sent. Tests shorten it.
 */
export const metricsScrapeLimits = { concurrent: 4, stallMs: 60_000 };

let scrapesRunning = 0;

/** The client left (or was cut off): its scrape stops, and nothing failed that needs a log line. */
class ClientGone extends Error {}

const logger = new Logger('Metrics');

/** `/metrics`, outside the `/api/v1` prefix where Prometheus looks by default (see create-app.ts). */
@ApiTags('metrics')
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Get()
  @ApiOperation({
    summary: 'Scrape Prometheus metrics',
    description:
      'Needs `settings:view` (an operator API key in the scrape configuration). Answers the Prometheus text format 0.0.4: ' +
      'the notAfter and notBefore of every current certificate link, the last scan time and outcome of every scanned endpoint, ' +
      "each scanner's last contact, the alert deliveries and HTTP requests of this process by route template, and the Node " +
      'process defaults. Every scrape reads the inventory afresh and streams it as it is read; more than four scrapes of one ' +
      'process at once answer 429 with `Retry-After`, and a client that takes nothing for a minute is cut off.',
  })
  @RequirePermission('settings:view')
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'The Prometheus text exposition format.', content: { 'text/plain': { schema: { type: 'string' } } } })
  @ApiTooManyRequestsResponse({
    description: 'More scrapes of this process at once than it serves; `Retry-After` says how many seconds to wait.',
  })
  async getMetrics(@Res() res: Response): Promise<void> {
    if (scrapesRunning >= metricsScrapeLimits.concurrent) {
      throw new RetryLaterException('Too many metrics scrapes are running; try again in a few seconds.', 5);
    }
    scrapesRunning += 1;
    try {
      await this.metrics.writeScrape((chunk) => writeChunk(res, chunk));
      res.end();
    } catch (error) {
      if (error instanceof ClientGone) return;
      // Before the first byte, the usual error answer (a 503 for a database that is down, ...).
      if (!res.headersSent) throw error;
      // After it, a cut connection rather than a scrape that looks whole but misses series.
      logger.error(`Metrics scrape failed mid-response: ${(error as Error).message}`, {
        requestId: res.req.requestId,
        stack: (error as Error).stack,
      });
      res.destroy();
    } finally {
      scrapesRunning -= 1;
    }
  }
}

/**
 * Writes one chunk; while the client is behind, answers a promise settled when it has taken
 * what was written (rejected if it leaves, or is cut off after metricsScrapeLimits.stallMs).
 */
function writeChunk(res: Response, chunk: string): Promise<void> | undefined {
  if (res.destroyed) return Promise.reject(new ClientGone());
  // Streamed as it is built: no ETag over tens of megabytes, no caching of a live reading.
  if (!res.headersSent) res.status(200).set({ 'Content-Type': PROMETHEUS_CONTENT_TYPE, 'Cache-Control': 'no-store' });
  if (res.write(chunk)) return undefined;
  return new Promise((resolve, reject) => {
    const onDrain = () => settle(null);
    const onClose = () => settle(new ClientGone());
    const stalled = setTimeout(() => res.destroy(), metricsScrapeLimits.stallMs);
    const settle = (error: ClientGone | null) => {
      clearTimeout(stalled);
      res.off('drain', onDrain);
      res.off('close', onClose);
      if (error === null) resolve();
      else reject(error);
    };
    res.once('drain', onDrain);
    res.once('close', onClose);
  });
}
