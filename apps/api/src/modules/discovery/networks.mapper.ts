import type { NetworkResponseDto } from './networks.dto';
import type { DiscoveryNetworkEntity } from './network.entity';

export function toNetworkResponse(network: DiscoveryNetworkEntity): NetworkResponseDto {
  return {
    id: network.id,
    name: network.name,
    ranges: network.ranges,
    ports: network.ports,
    scannerId: network.scannerId,
    scanCronExpression: network.scanCronExpression,
    enabled: network.enabled,
    createdAt: network.createdAt.toISOString(),
    updatedAt: network.updatedAt.toISOString(),
    lastSweepAt: network.lastSweepAt?.toISOString() ?? null,
  };
}
