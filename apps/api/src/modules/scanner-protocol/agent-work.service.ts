import { Injectable } from '@nestjs/common';
import type { ScannerConfig, WorkItem } from '@certkeeper/domain/protocol';
import { Clock } from '../../common/clock';
import { ScannersService } from '../scanners/scanners.service';
import { ScannerProtocolRepository } from './scanner-protocol.repository';
import { ScanWorkSignal } from './scan-work-signal';

/** What an agent asks before it scans: its own configuration and its work, the latter as a long-poll. */
@Injectable()
export class AgentWorkService {
  constructor(
    private readonly protocol: ScannerProtocolRepository,
    private readonly scanners: ScannersService,
    private readonly signal: ScanWorkSignal,
    private readonly clock: Clock,
  ) {}

  /** The scanner's own record; the discovery networks it sweeps are added by the caller. */
  async configOf(scannerId: string): Promise<Omit<ScannerConfig, 'discoveryNetworks'>> {
    const scanner = await this.scanners.getScanner(scannerId);
    return {
      id: scanner.id,
      name: scanner.name,
      isDefault: scanner.isDefault,
      scanCronExpression: scanner.scanCronExpression,
      scanConcurrency: scanner.scanConcurrency,
    };
  }

  /**
   * The scanner's work; `dueOnly` keeps what is due now (never scanned, or a scan requested). With
   * `waitMs`, an empty due list is a long-poll (docs/decisions/0012-scan-now.md): held until work
   * becomes due (a notification from any replica) or the wait ends, then answered. The watch opens
   * before the first look, so work that arrives between the look and the wait is not missed.
   */
  async workOf(scannerId: string, dueOnly = false, waitMs = 0): Promise<WorkItem[]> {
    const scanner = await this.scanners.getScanner(scannerId);
    const find = () => this.protocol.findWork(scanner.id, scanner.isDefault, this.clock.now(), dueOnly);
    const watch = dueOnly && waitMs > 0 ? this.signal.watch(scanner.id, scanner.isDefault) : null;
    if (!watch) return find();
    const deadline = Date.now() + waitMs;
    try {
      for (;;) {
        const items = await find();
        const remaining = deadline - Date.now();
        if (items.length > 0 || remaining <= 0) return items;
        if ((await watch.next(remaining)) === 'closing') return items;
      }
    } finally {
      watch.close();
    }
  }
}
