import { Injectable } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { AppMetrics } from './app-metrics';
import { INVENTORY_PAIRS, type InventoryFamily, MetricsRepository } from './metrics.repository';
import { ChunkedText, gaugeHeader, type TextSink } from './prometheus-text';

/** The HELP text of each family read from the inventory. */
const INVENTORY_HELP: Record<InventoryFamily, string> = {
  certkeeper_certificate_not_after_seconds:
    'The notAfter of the certificate current on the endpoint in this use, in seconds since the epoch.',
  certkeeper_certificate_not_before_seconds:
    'The notBefore of the certificate current on the endpoint in this use, in seconds since the epoch.',
  certkeeper_endpoint_last_scan_timestamp_seconds:
    'When the endpoint was last scanned, in seconds since the epoch; only endpoints scanned at least once.',
  certkeeper_endpoint_scan_success:
    'Whether the latest scan of the endpoint succeeded (1) or failed (0); only endpoints scanned at least once.',
};

/**
 * A scrape (docs/api-contract.md section 12): the registry's families (HTTP, alerts, scanners,
 * process defaults) plus the inventory families, each pair of those from one query per scrape,
 * both queries in one snapshot. Nothing is cached between scrapes, so a deleted endpoint or a
 * replaced certificate is gone from the next one.
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
   * Writes a scrape to `sink` as it is read: the registry's families, then the inventory's, read
   * no faster than the sink takes the text. Each family's lines must come together, so of a pair
   * read by one query the first family is written as its rows arrive and the second kept as text
   * until the query ends. Nothing goes to the sink before the first chunk is full, so a small
   * scrape that fails is not half written; a large one holds a chunk and a family's text at most,
   * not its rows.
   */
  async writeScrape(sink: TextSink): Promise<void> {
    const text = new ChunkedText(sink);
    await text.add(await this.metrics.registry.metrics());
    await this.repository.inOneReading(async (readPair) => {
      for (const pair of INVENTORY_PAIRS) {
        const { first, second } = pair;
        const kept: string[] = [];
        const secondText = new ChunkedText((chunk) => {
          kept.push(chunk);
          return undefined;
        });
        await text.add(gaugeHeader(first, INVENTORY_HELP[first]));
        await secondText.add(gaugeHeader(second, INVENTORY_HELP[second]));
        await readPair(pair, (series) => {
          void secondText.add(`${second}${series.labels} ${series.second}\n`);
          return text.add(`${first}${series.labels} ${series.first}\n`);
        });
        await secondText.end();
        // Shifted out as written, so each kept chunk can go once the client has it.
        for (let chunk = kept.shift(); chunk !== undefined; chunk = kept.shift()) await text.add(chunk);
      }
    });
    await text.end();
  }
}
