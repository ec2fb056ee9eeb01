import { BadRequestException, Inject, Injectable, Logger, UnprocessableEntityException } from '@nestjs/common';
import { openSecret, sealSecret } from '../../common/crypto/secret-box';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { type ActorContext, AuditService } from '../audit/audit.service';
import { SettingsRepository } from '../settings/settings.repository';
import { discoveryUrl, IdentityProviderClient } from './identity-provider.client';
import { IdentityProviderUnavailableError } from './identity-provider-fetch';
import { type ActiveOidcSettings, OIDC_SETTINGS_KEY, type StoredOidcSettings, UNCONFIGURED_OIDC } from './oidc-settings';
import type { OidcSettingsResponseDto, UpdateOidcSettingsDto } from './oidc-settings.dto';

@Injectable()
export class OidcSettingsService {
  private readonly logger = new Logger('OIDC');

  constructor(
    private readonly settings: SettingsRepository,
    private readonly provider: IdentityProviderClient,
    private readonly audit: AuditService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async get(): Promise<OidcSettingsResponseDto> {
    return toResponse(await this.stored());
  }

  async replace(dto: UpdateOidcSettingsDto, actor: ActorContext): Promise<OidcSettingsResponseDto> {
    const current = await this.stored();
    const keepsSecret = dto.clientSecret === undefined || dto.clientSecret === null;
    const sealedClientSecret = keepsSecret
      ? current.sealedClientSecret
      : dto.clientSecret === ''
        ? null
        : sealSecret(dto.clientSecret as string, this.config.encryptionKey);
    const next: StoredOidcSettings = {
      enabled: dto.enabled,
      issuerUrl: dto.issuerUrl ?? null,
      clientId: dto.clientId ?? null,
      sealedClientSecret,
      scopes: dto.scopes ?? UNCONFIGURED_OIDC.scopes,
      emailClaim: dto.emailClaim ?? UNCONFIGURED_OIDC.emailClaim,
      nameClaim: dto.nameClaim ?? UNCONFIGURED_OIDC.nameClaim,
      roleClaim: dto.roleClaim ?? null,
      roleMapping: {
        admin: dto.roleMapping?.admin ?? [],
        operator: dto.roleMapping?.operator ?? [],
        viewer: dto.roleMapping?.viewer ?? [],
      },
      defaultRole: dto.defaultRole ?? null,
      buttonLabel: dto.buttonLabel ?? UNCONFIGURED_OIDC.buttonLabel,
    };
    const redirected = keepsSecret && current.sealedClientSecret !== null ? secretRedirections(current, next) : [];
    if (redirected.length > 0) {
      throw new BadRequestException(
        `clientSecret must be sent again when ${redirected.join(' or ')} changes (or "" to clear it), ` +
          'so that the stored secret is never sent to an issuer or client it was not entered for.',
      );
    }
    if (next.enabled && next.issuerUrl !== null) {
      const problem = await this.discoveryProblem(next.issuerUrl);
      if (problem !== null) throw new UnprocessableEntityException(problem);
    }
    await this.settings.write(OIDC_SETTINGS_KEY, next);
    // Saving is how an operator says the provider changed: this replica reads its metadata afresh.
    if (next.issuerUrl !== null) this.provider.forget(next.issuerUrl);
    const { sealedClientSecret: _sealed, ...audited } = next;
    await this.audit.record(actor, {
      action: 'settings:oidc',
      targetType: 'settings',
      targetId: OIDC_SETTINGS_KEY,
      details: { ...audited, clientSecretSet: sealedClientSecret !== null },
    });
    return toResponse(next);
  }

  /** For the public sign-in page. */
  async publicView(): Promise<{ enabled: boolean; buttonLabel: string }> {
    // Enabled only when a sign-in could start: configured, and its secret (if any) still opens.
    return { enabled: (await this.active()) !== null, buttonLabel: (await this.stored()).buttonLabel };
  }

  /** The settings a sign-in uses, or null when OIDC is off (or its secret cannot be opened any more). */
  async active(): Promise<ActiveOidcSettings | null> {
    const stored = await this.stored();
    if (!stored.enabled || stored.issuerUrl === null || stored.clientId === null) return null;
    let clientSecret: string | null = null;
    if (stored.sealedClientSecret !== null) {
      try {
        clientSecret = openSecret(stored.sealedClientSecret, this.config.encryptionKey);
      } catch {
        this.logger.error('The stored OIDC client secret cannot be decrypted with the current ENCRYPTION_KEY; set it again.');
        return null;
      }
    }
    const { enabled: _enabled, sealedClientSecret: _sealed, buttonLabel: _label, ...rest } = stored;
    return { ...rest, issuerUrl: stored.issuerUrl, clientId: stored.clientId, clientSecret };
  }

  /**
   * Why the issuer's discovery document is not usable, as a sentence for the 422, or null. Read
   * through the outbound guard within the provider deadline, and checked for what sign-in needs.
   */
  private async discoveryProblem(issuerUrl: string): Promise<string | null> {
    const address = discoveryUrl(issuerUrl);
    let response: Response;
    try {
      response = await this.provider.fetchFor(this.provider.deadline())(address, {
        method: 'GET',
        headers: { accept: 'application/json' },
      });
    } catch (error) {
      const reason = error instanceof IdentityProviderUnavailableError ? error.message : 'unknown error';
      return `The issuer's discovery document ${address} could not be read: ${reason}.`;
    }
    if (response.status !== 200) return `The issuer's discovery document ${address} answered HTTP ${response.status}, not 200.`;
    let document: unknown;
    try {
      document = JSON.parse(await response.text());
    } catch {
      return `The issuer's discovery document ${address} is not JSON.`;
    }
    if (typeof document !== 'object' || document === null || Array.isArray(document)) {
      return `The issuer's discovery document ${address} is not a JSON object.`;
    }
    const metadata = document as Record<string, unknown>;
    if (
      typeof metadata.issuer !== 'string' ||
      !URL.canParse(metadata.issuer) ||
      new URL(metadata.issuer).href !== new URL(issuerUrl).href
    ) {
      return `The discovery document names the issuer ${JSON.stringify(metadata.issuer ?? null)}, not ${JSON.stringify(issuerUrl)}: issuerUrl must be exactly the provider's issuer.`;
    }
    const missing = ['authorization_endpoint', 'token_endpoint', 'jwks_uri'].filter(
      (field) => typeof metadata[field] !== 'string' || !URL.canParse(metadata[field]),
    );
    if (missing.length > 0) return `The issuer's discovery document has no usable ${missing.join(', ')}.`;
    return null;
  }

  private async stored(): Promise<StoredOidcSettings> {
    return { ...UNCONFIGURED_OIDC, ...((await this.settings.read<StoredOidcSettings>(OIDC_SETTINGS_KEY)) ?? {}) };
  }
}

/**
 * The changes that would send the stored client secret to another token endpoint or under another
 * client: someone who may edit the settings but never knew the secret must not be able to collect
 * it with a sign-in at an issuer of their own (docs/api-contract.md section 9).
 */
function secretRedirections(current: StoredOidcSettings, next: StoredOidcSettings): string[] {
  // Clearing a field sends the secret nowhere (turning sign-in off needs no secret); setting it
  // again later is a change from null, which asks for the secret then.
  return (['issuerUrl', 'clientId'] as const).filter((field) => next[field] !== null && current[field] !== next[field]);
}

function toResponse(stored: StoredOidcSettings): OidcSettingsResponseDto {
  const { sealedClientSecret, ...visible } = stored;
  return { ...visible, clientSecretSet: sealedClientSecret !== null };
}
