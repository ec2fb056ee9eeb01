import { ForbiddenException, Injectable, UnauthorizedException } from '@nestjs/common';
import { hashToken, randomToken } from '../../common/auth/secrets';
import { Clock } from '../../common/clock';
import type { UserEntity } from '../users/user.entity';
import { OidcCodesRepository } from './oidc-codes.repository';
import { UsersRepository } from '../users/users.repository';

/** How long the one-time code of a finished sign-in may wait for its exchange. */
export const LOGIN_CODE_LIFETIME_MS = 60 * 1000;

/**
 * The one-time code a finished sign-in hands the browser instead of a token (a token in a URL
 * ends up in logs and history): 32 random bytes, stored as SHA-256 only, valid 60 seconds by the
 * application's Clock, redeemed once by a single DELETE ... RETURNING, whichever replica asks, and
 * only by the browser that started the sign-in (its flow cookie): a code planted in another
 * browser signs nobody in there.
 */
@Injectable()
export class OidcLoginCodesService {
  constructor(
    private readonly codes: OidcCodesRepository,
    private readonly users: UsersRepository,
    private readonly clock: Clock,
  ) {}

  /** A code for `user`, redeemable only with the flow whose hash is `flowHash` (see OidcFlowService.flowHash). */
  async issue(user: UserEntity, flowHash: string): Promise<string> {
    const code = randomToken(32);
    const now = this.clock.now();
    await this.codes.insertLoginCode(
      { codeHash: hashToken(code), flowHash, userId: user.id, expiresAt: new Date(now.getTime() + LOGIN_CODE_LIFETIME_MS) },
      now,
    );
    return code;
  }

  /**
   * The code's user, when `flowHash` is that of the browser it was issued to; 401 for an unknown,
   * used or expired code or another browser (null: it sent no valid flow cookie), 403 for a user
   * disabled since.
   */
  async redeem(code: string, flowHash: string | null): Promise<UserEntity> {
    const userId = await this.codes.consumeLoginCode(hashToken(code), flowHash, this.clock.now());
    const user = userId === null ? null : await this.users.findById(userId);
    if (user === null) {
      throw new UnauthorizedException(
        'The sign-in code is unknown, used or expired, or this browser did not start its sign-in: sign in again.',
      );
    }
    if (user.disabled) throw new ForbiddenException('This account is disabled.');
    return user;
  }
}
