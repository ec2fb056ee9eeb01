import { BadRequestException, Injectable, NotFoundException } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { API_KEY_PREFIX } from '../../common/auth/bearer-token';
import { hashToken, randomToken, tokenHashesEqual } from '../../common/auth/secrets';
import { Clock } from '../../common/clock';
import type { UserEntity } from '../users/user.entity';
import type { ApiKeyEntity } from './api-key.entity';
import { ApiKeysRepository } from './api-keys.repository';

const KEY_ID_PATTERN = /^[0-9a-f]{16}$/;

@Injectable()
export class ApiKeysService {
  constructor(
    private readonly keys: ApiKeysRepository,
    private readonly clock: Clock,
  ) {}

  /** Returns the stored key and the raw `stx_p_<keyId>_<secret>`, which exists only in this response. */
  async createKey(userId: string, name: string, expiresAt: Date | null): Promise<{ key: ApiKeyEntity; raw: string }> {
    if (expiresAt && expiresAt.getTime() <= this.clock.now().getTime()) throw new BadRequestException('expiresAt must be in the future');
    const keyId = randomBytes(8).toString('hex');
    const secret = randomToken(32);
    const key = await this.keys.insert({ userId, name, keyId, secretHash: hashToken(secret), expiresAt });
    return { key, raw: `${API_KEY_PREFIX}${keyId}_${secret}` };
  }

  listKeys(userId: string): Promise<ApiKeyEntity[]> {
    return this.keys.listForUser(userId);
  }

  async deleteKey(userId: string, id: string): Promise<void> {
    if (!(await this.keys.deleteForUser(userId, id))) throw new NotFoundException('API key not found.');
  }

  /** The owner of a valid, unexpired key whose account is enabled; null otherwise. */
  async authenticate(token: string): Promise<UserEntity | null> {
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
    return key.user;
  }
}
