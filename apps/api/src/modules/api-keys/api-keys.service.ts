import { BadRequestException, Injectable, NotFoundException } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { API_KEY_PREFIX } from '../../common/auth/bearer-token';
import { hashToken, randomToken, tokenHashesEqual } from '../../common/auth/secrets';
import type { UserCredential } from '../../common/auth/principal';
import { Clock } from '../../common/clock';
import type { Transaction } from '../../database/transaction';
import { type ActorContext, AuditService } from '../audit/audit.service';
import type { UserEntity } from '../users/user.entity';
import type { ApiKeyEntity } from './api-key.entity';
import { ApiKeysRepository } from './api-keys.repository';

const KEY_ID_PATTERN = /^[0-9a-f]{16}$/;

@Injectable()
export class ApiKeysService {
  constructor(
    private readonly keys: ApiKeysRepository,
    private readonly clock: Clock,
    private readonly audit: AuditService,
  ) {}

  /**
   * Returns the stored key and the raw `stx_p_<keyId>_<secret>`, which exists only in this response.
   * A key minted with a key never outlives it: without `expiresAt` the new key inherits the minting
   * key's expiry, and a later one is refused (docs/api-contract.md section 10).
   */
  async createKey(
    userId: string,
    request: { name: string; expiresAt: Date | null },
    mintedWith: UserCredential,
    actor: ActorContext,
  ): Promise<{ key: ApiKeyEntity; raw: string }> {
    const expiresAt = request.expiresAt ?? (mintedWith.kind === 'api-key' ? mintedWith.expiresAt : null);
    if (expiresAt && expiresAt.getTime() <= this.clock.now().getTime()) throw new BadRequestException('expiresAt must be in the future');
    if (mintedWith.kind === 'api-key' && mintedWith.expiresAt && (!expiresAt || expiresAt > mintedWith.expiresAt)) {
      throw new BadRequestException(
        `expiresAt must be at or before ${mintedWith.expiresAt.toISOString()}: an API key cannot mint a key that outlives itself.`,
      );
    }
    const keyId = randomBytes(8).toString('hex');
    const secret = randomToken(32);
    const key = await this.keys.insert({ userId, name: request.name, keyId, secretHash: hashToken(secret), expiresAt });
    await this.audit.record(actor, {
      action: 'apikey:create',
      targetType: 'api_key',
      targetId: key.id,
      details: { userId, name: key.name, keyId, expiresAt: expiresAt?.toISOString() ?? null, mintedWith: mintedWith.kind },
    });
    return { key, raw: `${API_KEY_PREFIX}${keyId}_${secret}` };
  }

  listKeys(userId: string): Promise<ApiKeyEntity[]> {
    return this.keys.listForUser(userId);
  }

  async deleteKey(userId: string, id: string, actor: ActorContext): Promise<void> {
    if (!(await this.keys.deleteForUser(userId, id))) throw new NotFoundException('API key not found.');
    await this.audit.record(actor, { action: 'apikey:delete', targetType: 'api_key', targetId: id, details: { userId } });
  }

  /** Deletes every key of the user (a password reset that asks for it), in the caller's transaction. */
  deleteAllForUser(userId: string, transaction?: Transaction): Promise<number> {
    return this.keys.deleteAllForUser(userId, transaction);
  }

  /** A valid, unexpired key and its owner, whose account is enabled; null otherwise. */
  async authenticate(token: string): Promise<{ key: ApiKeyEntity; owner: UserEntity } | null> {
    const rest = token.slice(API_KEY_PREFIX.length);
    const separator = rest.indexOf('_');
    if (separator < 0) return null;
    const keyId = rest.slice(0, separator);
    const secret = rest.slice(separator + 1);
    if (!KEY_ID_PATTERN.test(keyId) || secret.length === 0) return null;

    const key = await this.keys.findWithOwnerByKeyId(keyId);
    if (!key || !tokenHashesEqual(key.secretHash, hashToken(secret))) return null;
    const now = this.clock.now();
    if (key.expiresAt && key.expiresAt.getTime() <= now.getTime()) return null;
    if (key.user.disabled) return null;
    await this.keys.touchLastUsed(key.id, now);
    return { key, owner: key.user };
  }
}
