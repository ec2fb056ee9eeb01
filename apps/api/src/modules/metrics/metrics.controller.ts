import { Controller, Get, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { RequirePermission } from '../../common/auth/route-access';
import { MetricsService } from './metrics.service';
import { PROMETHEUS_CONTENT_TYPE } from './prometheus-text';

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
      'process defaults. Every scrape reads the inventory afresh.',
  })
  @RequirePermission('settings:view')
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'The Prometheus text exposition format.', content: { 'text/plain': { schema: { type: 'string' } } } })
  async getMetrics(@Res() res: Response): Promise<void> {
    const chunks = await this.metrics.scrape();
    // Streamed as it is built: no ETag over tens of megabytes, no caching of a live reading.
    res.status(200).set({ 'Content-Type': PROMETHEUS_CONTENT_TYPE, 'Cache-Control': 'no-store' });
    // Each chunk is built while the previous one drains to the client, and no further ahead: at
    // most two chunks of a few megabytes of text are in memory at a time (besides the rows read).
    let previous: Promise<boolean> | null = null;
    for (const chunk of chunks) {
      if (previous && !(await previous)) return; // the client went away
      previous = res.write(chunk) ? null : drained(res);
    }
    if (previous && !(await previous)) return;
    res.end();
  }
}

/** Whether the response drained (true) or its connection closed first (false). */
function drained(res: Response): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onDrain = () => settle(true);
    const onClose = () => settle(false);
    const settle = (value: boolean) => {
      res.off('drain', onDrain);
      res.off('close', onClose);
      resolve(value);
    };
    res.once('drain', onDrain);
    res.once('close', onClose);
  });
}
