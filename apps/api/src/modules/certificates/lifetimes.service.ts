import { Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { type CallerScope, CallerScopes } from '../users/caller-scope';
import type { LifetimesResponseDto } from './lifetimes.dto';
import { LifetimesRepository } from './lifetimes.repository';

@Injectable()
export class LifetimesService {
  constructor(
    private readonly lifetimes: LifetimesRepository,
    private readonly scopes: CallerScopes,
    private readonly clock: Clock,
  ) {}

  /** The `limit` most common lifetimes of the current certificates in the caller's scope, and how many there are in all. */
  async mostCommon(userId: string, scope: CallerScope, limit: number): Promise<LifetimesResponseDto> {
    const counts = await this.lifetimes.countByLifetime(this.clock.now(), await this.scopes.subscriptions(userId, scope));
    return { certificates: counts.reduce((sum, count) => sum + count.certificates, 0), lifetimes: counts.slice(0, limit) };
  }
}
