import { Injectable, Logger } from '@nestjs/common';
import { SCANNER_TOKEN_PREFIX } from '../../common/auth/bearer-token';
import { hashToken, randomToken } from '../../common/auth/secrets';
import { Clock } from '../../common/clock';
import type { ScannerEntity } from './scanner.entity';
import { ScannersRepository } from './scanners.repository';

// lastUsedAt is written at most this often per scanner, so an agent's burst of result posts does
// not turn into a write per request.
const LAST_USED_RESOLUTION_MS = 30_000;

@Injectable()
export class ScannersService {
  private readonly logger = new Logger('Scanners');
  private readonly lastUsedWritten = new Map<string, number>();

  constructor(
    private readonly scanners: ScannersRepository,
    private readonly clock: Clock,
  ) {}

  /** Creates a scanner and returns it with its raw token, which exists only in this result. */
  async createScanner(name: string, isDefault = false): Promise<{ scanner: ScannerEntity; token: string }> {
    const token = newScannerToken();
    const scanner = await this.scanners.insert({ name, isDefault, tokenHash: hashToken(token) });
    return { scanner, token };
  }

  /**
   * First start: creates the scanner named `default`. Its token is not shown; an operator who
   * deploys an agent for it regenerates the token.
   */
  async ensureDefaultScanner(): Promise<void> {
    if (await this.scanners.insertDefaultIfNone({ name: 'default', tokenHash: hashToken(newScannerToken()) })) {
      this.logger.log('Created the default scanner.');
    }
  }

  async authenticate(token: string): Promise<ScannerEntity | null> {
    const scanner = await this.scanners.findByTokenHash(hashToken(token));
    if (!scanner) return null;
    const now = this.clock.now();
    const lastWritten = this.lastUsedWritten.get(scanner.id) ?? 0;
    if (now.getTime() - lastWritten >= LAST_USED_RESOLUTION_MS) {
      this.lastUsedWritten.set(scanner.id, now.getTime());
      await this.scanners.touchLastUsed(scanner.id, now);
    }
    return scanner;
  }
}

function newScannerToken(): string {
  return `${SCANNER_TOKEN_PREFIX}${randomToken(32)}`;
}
