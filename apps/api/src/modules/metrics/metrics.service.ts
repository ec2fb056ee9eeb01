import { Injectable } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { AppMetrics } from './app-metrics';
import { type CurrentLinkSeries, MetricsRepository, type ScannedEndpointSeries } from './metrics.repository';
import { gaugeFamily } from './prometheus-text';

interface Family {
  name: string;
  help: string;
}

const NOT_AFTER: Family = {
  name: 'certkeeper_certificate_not_after_seconds',
  help: 'The notAfter of the certificate current on the endpoint in this use, in seconds since the epoch.',
};
const NOT_BEFORE: Family = {
  name: 'certkeeper_certificate_not_before_seconds',
  help: 'The notBefore of the certificate current on the endpoint in this use, in seconds since the epoch.',
};
const LAST_SCAN: Family = {
  name: 'certkeeper_endpoint_last_scan_timestamp_seconds',
  help: 'When the endpoint was last scanned, in seconds since the epoch; only endpoints scanned at least once.',
};
const SCAN_SUCCESS: Family = {
  name: 'certkeeper_endpoint_scan_success',
  help: 'Whether the latest scan of the endpoint succeeded (1) or failed (0); only endpoints scanned at least once.',
};

/**
 * A scrape (docs/api-contract.md section 12): the registry's families (HTTP, alerts, scanners,
 * process defaults) plus the inventory families, each pair of those from one query per scrape.
 * Nothing is cached between scrapes, so a deleted endpoint or a replaced certificate is gone from
 * the next one.
 */
@Injectable()
export class MetricsService {
  constructor(
    private readonly metrics: AppMetrics,
    private readonly repository: MetricsRepository,
  ) {
    // A handful of series: prom-client's collect-on-scrape, reset first so a deleted scanner disappears.
    new Gauge({
      name: 'certkeeper_scanner_last_seen_timestamp_seconds',
      help: 'When the scanner last called the API (to the nearest 30 seconds), by scanner name; absent for a scanner never seen.',
      labelNames: ['scanner'] as const,
      registers: [metrics.registry],
      async collect() {
        const scanners = await repository.findScannersLastSeen();
        this.reset();
        for (const scanner of scanners) if (scanner.lastSeenAt !== null) this.set({ scanner: scanner.name }, scanner.lastSeenAt);
      },
    });
  }

  /**
   * Reads everything a scrape shows, then returns the exposition as chunks to write in order,
   * built lazily as they are taken.
   */
  async scrape(): Promise<Iterable<string>> {
    const [registered, links, endpoints] = await Promise.all([
      this.metrics.registry.metrics(),
      this.repository.findCurrentLinkSeries(),
      this.repository.findScannedEndpointSeries(),
    ]);
    return exposition(registered, links, endpoints);
  }
}

function* exposition(registered: string, links: CurrentLinkSeries[], endpoints: ScannedEndpointSeries[]): Generator<string> {
  const labels = (series: { labels: string }) => series.labels;
  yield registered;
  yield* gaugeFamily(NOT_AFTER.name, NOT_AFTER.help, links, labels, (link) => link.notAfter);
  yield* gaugeFamily(NOT_BEFORE.name, NOT_BEFORE.help, links, labels, (link) => link.notBefore);
  yield* gaugeFamily(LAST_SCAN.name, LAST_SCAN.help, endpoints, labels, (endpoint) => endpoint.lastScan);
  yield* gaugeFamily(SCAN_SUCCESS.name, SCAN_SUCCESS.help, endpoints, labels, (endpoint) => endpoint.success);
}
