import { Injectable, NotFoundException } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { UsersRepository } from './users.repository';

/** Which endpoints an inventory read covers (docs/api-contract.md section 11): the caller's subscriptions, or everything. */
export const CALLER_SCOPES = ['subscribed', 'all'] as const;
export type CallerScope = (typeof CALLER_SCOPES)[number];

/** The `scope` query parameter of the reads scoped like e-mail alerts and calendar feeds (the dashboard, the lifetimes). */
export class CallerScopeQueryDto {
  @ApiPropertyOptional({
    enum: CALLER_SCOPES,
    default: 'subscribed',
    description: "subscribed: the caller's tag subscriptions (none: everything); all: every endpoint.",
  })
  @IsOptional()
  @IsIn(CALLER_SCOPES, { message: 'scope must be subscribed or all' })
  scope: CallerScope = 'subscribed';
}

/** The tags a scoped read is limited to, for the rule in expiry/subscription-scope.ts: the empty list is everything. */
@Injectable()
export class CallerScopes {
  constructor(private readonly users: UsersRepository) {}

  /** scope=all: no restriction (the empty list); otherwise the caller's subscribed tags. */
  async subscriptions(userId: string, scope: CallerScope): Promise<string[]> {
    if (scope === 'all') return [];
    const user = await this.users.findById(userId);
    // The guard has just loaded this user; only a concurrent delete gets here.
    if (!user) throw new NotFoundException('User not found.');
    return user.tagSubscriptions;
  }
}
