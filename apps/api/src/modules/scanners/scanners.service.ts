import { ConflictException, Injectable, Logger, NotFoundException } from '@nestjs/common';
import { SCANNER_TOKEN_PREFIX } from '../../common/auth/bearer-token';
import { hashToken, randomToken } from '../../common/auth/secrets';
import { Clock } from '../../common/clock';
import { type ActorContext, AuditService } from '../audit/audit.service';
import { DEFAULT_SCAN_CONCURRENCY, DEFAULT_SCAN_CRON, type ScannerEntity } from './scanner.entity';
import type { CreateScannerDto, PatchScannerDto, ScannerResponseDto, ScannerWithTokenResponseDto } from './scanners.dto';
import { toScannerResponse } from './scanners.mapper';
import { DuplicateScannerNameError, type ScannerChanges, ScannersRepository } from './scanners.repository';

// lastUsedAt is written at most this often per scanner and process, so an agent's burst of
// result posts does not turn into a database write per request.
const LAST_USED_RESOLUTION_MS = 30_000;

@Injectable()
export class ScannersService {
  private readonly logger = new Logger('Scanners');
  private readonly lastUsedWritten = new Map<string, number>();
  /** Token hash -> scanner id of agents this process started itself (EMBEDDED_SCANNER); never stored. */
  private readonly embeddedTokens = new Map<string, string>();

  constructor(
    private readonly scanners: ScannersRepository,
    private readonly audit: AuditService,
    private readonly clock: Clock,
  ) {}

  listScanners(): Promise<ScannerEntity[]> {
    return this.scanners.listAll();
  }

  async getScanner(id: string): Promise<ScannerEntity> {
    const scanner = await this.scanners.findById(id);
    if (!scanner) throw new NotFoundException('Scanner not found.');
    return scanner;
  }

  /** Every scanner as GET /scanners answers it. */
  async describeScanners(): Promise<ScannerResponseDto[]> {
    const now = this.clock.now();
    return (await this.listScanners()).map((scanner) => toScannerResponse(scanner, now));
  }

  /** One scanner as GET /scanners/{id} answers it; 404 for an unknown id. */
  async describeScanner(id: string): Promise<ScannerResponseDto> {
    return this.respond(await this.getScanner(id));
  }

  /** Creates a scanner and returns it with its raw token, which exists only in this result. */
  async createScanner(dto: CreateScannerDto, actor: ActorContext): Promise<ScannerWithTokenResponseDto> {
    const token = newScannerToken();
    return this.scanners.inTransaction(async (transaction) => {
      const scanner = await this.scanners
        .insert(
          {
            name: dto.name,
            isDefault: false,
            tokenHash: hashToken(token),
            scanCronExpression: dto.scanCronExpression ?? DEFAULT_SCAN_CRON,
            scanConcurrency: dto.scanConcurrency ?? DEFAULT_SCAN_CONCURRENCY,
          },
          transaction,
        )
        .catch(mapDuplicateName);
      await this.audit.record(
        actor,
        { action: 'scanner:create', targetType: 'scanner', targetId: scanner.id, details: { name: scanner.name } },
        transaction,
      );
      return { ...this.respond(scanner), token };
    });
  }

  /** PUT: omitted settings return to their defaults. */
  replaceScanner(id: string, dto: CreateScannerDto, actor: ActorContext): Promise<ScannerResponseDto> {
    return this.changeScanner(id, actor, {
      name: dto.name,
      scanCronExpression: dto.scanCronExpression ?? DEFAULT_SCAN_CRON,
      scanConcurrency: dto.scanConcurrency ?? DEFAULT_SCAN_CONCURRENCY,
    });
  }

  /** PATCH: changes only what it names. */
  patchScanner(id: string, dto: PatchScannerDto, actor: ActorContext): Promise<ScannerResponseDto> {
    const changes: ScannerChanges = {};
    if (dto.name !== undefined) changes.name = dto.name;
    if (dto.scanCronExpression !== undefined) changes.scanCronExpression = dto.scanCronExpression;
    if (dto.scanConcurrency !== undefined) changes.scanConcurrency = dto.scanConcurrency;
    return this.changeScanner(id, actor, changes);
  }

  private changeScanner(id: string, actor: ActorContext, changes: ScannerChanges): Promise<ScannerResponseDto> {
    return this.scanners.inTransaction(async (transaction) => {
      const updated = await this.scanners.update(id, changes, transaction).catch(mapDuplicateName);
      if (!updated) throw new NotFoundException('Scanner not found.');
      await this.audit.record(
        actor,
        { action: 'scanner:update', targetType: 'scanner', targetId: id, details: { ...changes } },
        transaction,
      );
      return this.respond(updated);
    });
  }

  /** Refused for the only and the default scanner; its endpoints fall back to the default (scannerId null). */
  async deleteScanner(id: string, actor: ActorContext): Promise<void> {
    await this.scanners.inTransaction(async (transaction) => {
      const scanner = await this.scanners.findById(id, transaction);
      if (!scanner) throw new NotFoundException('Scanner not found.');
      if ((await this.scanners.count(transaction)) === 1) throw new ConflictException('The only scanner cannot be deleted.');
      if (scanner.isDefault) throw new ConflictException('The default scanner cannot be deleted: make another scanner the default first.');
      await this.scanners.delete(id, transaction);
      await this.audit.record(
        actor,
        { action: 'scanner:delete', targetType: 'scanner', targetId: id, details: { name: scanner.name } },
        transaction,
      );
    });
  }

  async makeDefault(id: string, actor: ActorContext): Promise<ScannerResponseDto> {
    return this.scanners.inTransaction(async (transaction) => {
      if (!(await this.scanners.findById(id, transaction))) throw new NotFoundException('Scanner not found.');
      await this.scanners.makeDefault(id, transaction);
      await this.audit.record(actor, { action: 'scanner:set_default', targetType: 'scanner', targetId: id }, transaction);
      return this.respond((await this.scanners.findById(id, transaction)) as ScannerEntity);
    });
  }

  /** A new token; name, schedule, concurrency, default flag and pinned endpoints are kept. The old token stops working. */
  async regenerateToken(id: string, actor: ActorContext): Promise<ScannerWithTokenResponseDto> {
    const token = newScannerToken();
    return this.scanners.inTransaction(async (transaction) => {
      const scanner = await this.scanners.update(id, { tokenHash: hashToken(token) }, transaction);
      if (!scanner) throw new NotFoundException('Scanner not found.');
      await this.audit.record(actor, { action: 'scanner:regenerate_token', targetType: 'scanner', targetId: id }, transaction);
      return { ...this.respond(scanner), token };
    });
  }

  private respond(scanner: ScannerEntity): ScannerResponseDto {
    return toScannerResponse(scanner, this.clock.now());
  }

  /** The id endpoints without a pinned scanner are assigned to. */
  async defaultScannerId(): Promise<string | null> {
    return (await this.scanners.findDefault())?.id ?? null;
  }

  async scannerExists(id: string): Promise<boolean> {
    return (await this.scanners.findById(id)) !== null;
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

  /**
   * A token for the agent this process runs itself, acting as the current default scanner. It
   * lives only in this process's memory, so it neither replaces the token of an agent deployed
   * elsewhere nor survives a restart.
   */
  async issueEmbeddedToken(): Promise<string> {
    const defaultScanner = await this.scanners.findDefault();
    if (!defaultScanner) throw new Error('There is no default scanner for the embedded agent to act as.');
    const token = newScannerToken();
    this.embeddedTokens.set(hashToken(token), defaultScanner.id);
    return token;
  }

  async authenticate(token: string): Promise<ScannerEntity | null> {
    const hash = hashToken(token);
    const embeddedScannerId = this.embeddedTokens.get(hash);
    const scanner = embeddedScannerId ? await this.scanners.findById(embeddedScannerId) : await this.scanners.findByTokenHash(hash);
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

function mapDuplicateName(error: unknown): never {
  if (error instanceof DuplicateScannerNameError) throw new ConflictException('A scanner with this name already exists.');
  throw error;
}
