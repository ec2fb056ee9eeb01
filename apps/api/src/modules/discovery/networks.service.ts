import { BadRequestException, ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { parseNetworkPorts, parseNetworkRanges } from '@certkeeper/domain/discovery';
import type { Transaction } from '../../database/transaction';
import { Clock } from '../../common/clock';
import { type ActorContext, AuditService } from '../audit/audit.service';
import { DEFAULT_NETWORK_SCAN_CRON, type DiscoveryNetworkEntity } from './network.entity';
import type { NetworkInputDto, PatchNetworkDto } from './networks.dto';
import { SweepsRepository } from './sweeps.repository';
import { DuplicateNetworkNameError, type NetworkChanges, type NetworkRecord, NetworksRepository } from './networks.repository';

/** Discovery networks, docs/api-contract.md section 8. Ranges and ports were checked by the DTO; here they are normalised. */
@Injectable()
export class NetworksService {
  constructor(
    private readonly networks: NetworksRepository,
    private readonly sweeps: SweepsRepository,
    private readonly audit: AuditService,
    private readonly clock: Clock,
  ) {}

  listNetworks(): Promise<DiscoveryNetworkEntity[]> {
    return this.networks.listAll();
  }

  async getNetwork(id: string): Promise<DiscoveryNetworkEntity> {
    const network = await this.networks.findById(id);
    if (!network) throw new NotFoundException('Network not found.');
    return network;
  }

  /** Without `scannerId` the current default scanner's id is stored. */
  createNetwork(dto: NetworkInputDto, actor: ActorContext): Promise<DiscoveryNetworkEntity> {
    return this.networks.inTransaction(async (transaction) => {
      // Created at the application's time: the cron schedule counts its slots from it (SweepsService.queueDueSweeps).
      const record = { ...(await this.fullRecord(dto, transaction)), createdAt: this.clock.now() };
      const network = await this.networks.insert(record, transaction).catch(mapDuplicateName);
      await this.audit.record(
        actor,
        { action: 'network:create', targetType: 'network', targetId: network.id, details: { name: network.name } },
        transaction,
      );
      return network;
    });
  }

  /** PUT: omitted optional fields return to their defaults (`scannerId`: the default scanner). */
  replaceNetwork(id: string, dto: NetworkInputDto, actor: ActorContext): Promise<DiscoveryNetworkEntity> {
    return this.changeNetwork(id, actor, (transaction) => this.fullRecord(dto, transaction));
  }

  /** PATCH: changes only what it names; `scannerId: null` assigns the default scanner. */
  patchNetwork(id: string, dto: PatchNetworkDto, actor: ActorContext): Promise<DiscoveryNetworkEntity> {
    return this.changeNetwork(id, actor, async (transaction) => {
      const changes: NetworkChanges = {};
      if (dto.name !== undefined) changes.name = dto.name;
      if (dto.ranges !== undefined) changes.ranges = normalisedRanges(dto.ranges);
      if (dto.ports !== undefined) changes.ports = normalisedPorts(dto.ports);
      if (dto.scannerId !== undefined) changes.scannerId = await this.resolveScanner(dto.scannerId, transaction);
      if (dto.scanCronExpression !== undefined) changes.scanCronExpression = dto.scanCronExpression;
      if (dto.enabled !== undefined) changes.enabled = dto.enabled;
      return changes;
    });
  }

  async deleteNetwork(id: string, actor: ActorContext): Promise<void> {
    await this.networks.inTransaction(async (transaction) => {
      const network = await this.networks.delete(id, transaction);
      if (!network) throw new NotFoundException('Network not found.');
      await this.audit.record(
        actor,
        { action: 'network:delete', targetType: 'network', targetId: id, details: { name: network.name } },
        transaction,
      );
    });
  }

  private changeNetwork(
    id: string,
    actor: ActorContext,
    buildChanges: (transaction: Transaction) => Promise<NetworkChanges>,
  ): Promise<DiscoveryNetworkEntity> {
    return this.networks.inTransaction(async (transaction) => {
      if (!(await this.networks.findById(id, transaction))) throw new NotFoundException('Network not found.');
      const changes = await buildChanges(transaction);
      const updated = await this.networks.update(id, changes, transaction).catch(mapDuplicateName);
      if (!updated) throw new NotFoundException('Network not found.');
      if (changes.scannerId !== undefined) await this.sweeps.reassignQueued(id, changes.scannerId, transaction);
      await this.audit.record(
        actor,
        { action: 'network:update', targetType: 'network', targetId: id, details: { ...changes } },
        transaction,
      );
      return updated;
    });
  }

  /** Every field of a network from a POST or PUT body: what is omitted takes its default. */
  private async fullRecord(dto: NetworkInputDto, transaction: Transaction): Promise<NetworkRecord> {
    return {
      name: dto.name,
      ranges: normalisedRanges(dto.ranges),
      ports: normalisedPorts(dto.ports),
      scannerId: await this.resolveScanner(dto.scannerId, transaction),
      scanCronExpression: dto.scanCronExpression ?? DEFAULT_NETWORK_SCAN_CRON,
      enabled: dto.enabled ?? true,
    };
  }

  /** A named scanner must exist (400 otherwise); none named means the current default scanner. */
  private async resolveScanner(scannerId: string | null | undefined, transaction: Transaction): Promise<string | null> {
    if (scannerId === undefined || scannerId === null) return this.networks.defaultScannerId(transaction);
    if (!(await this.networks.scannerExists(scannerId, transaction))) throw new BadRequestException('scannerId: no scanner has this id');
    return scannerId;
  }
}

function normalisedRanges(ranges: string[]): string[] {
  const parsed = parseNetworkRanges(ranges);
  if (!parsed.ok) throw new BadRequestException(parsed.problems);
  return parsed.value.ranges;
}

function normalisedPorts(ports: number[] | undefined): number[] {
  const parsed = parseNetworkPorts(ports);
  if (!parsed.ok) throw new BadRequestException(parsed.problems);
  return parsed.value;
}

function mapDuplicateName(error: unknown): never {
  if (error instanceof DuplicateNetworkNameError) throw new ConflictException('A network with this name already exists.');
  throw error;
}
