import type { SweepResponseDto } from './sweeps.dto';
import type { DiscoverySweepEntity } from './sweep.entity';

export function toSweepResponse(sweep: DiscoverySweepEntity): SweepResponseDto {
  return {
    id: sweep.id,
    networkId: sweep.networkId,
    scannerId: sweep.scannerId,
    status: sweep.status,
    requestedAt: sweep.requestedAt.toISOString(),
    startedAt: sweep.startedAt?.toISOString() ?? null,
    finishedAt: sweep.finishedAt?.toISOString() ?? null,
    addressesTotal: sweep.addressesTotal,
    addressesProbed: sweep.addressesProbed,
    servicesFound: sweep.servicesFound,
    error: sweep.error,
  };
}
