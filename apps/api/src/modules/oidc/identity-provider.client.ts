import { Inject, Injectable } from '@nestjs/common';
import type { OutboundGuard } from '@certkeeper/net';
import * as client from 'openid-client';
import { Clock } from '../../common/clock';
import { outboundGuardFor } from '../../common/net/outbound-guard';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { identityProviderFetch, IdentityProviderUnavailableError, type ProviderFetch } from './identity-provider-fetch';
import { type ActiveOidcSettings, allowsPlainHttp } from './oidc-settings';

const DEFAULT_TIMEOUT_MS = 10_000;

/** The discovery document's URL for an issuer (OpenID Connect Discovery 1.0, section 4). */
export function discoveryUrl(issuerUrl: string): string {
  return `${issuerUrl.replace(/\/+$/, '')}/.well-known/openid-configuration`;
}

/**
 * How long a provider's discovery document is reused before it is read again. A failed sign-in step
 * forgets it at once (IdentityProviderClient.forget), so a provider that moved is read again on
 * the next attempt rather than after this time.
 */
export const PROVIDER_METADATA_TTL_MS = 10 * 60 * 1000;

/** What one discovery of an issuer taught us: its metadata, and the signing keys read since. */
interface DiscoveredProvider {
  metadata: client.ServerMetadata;
  discoveredAt: number;
  keys?: client.ExportedJWKSCache;
}

/**
 * Talks to the configured identity provider through openid-client, the certified relying-party
 * library: every call goes through the outbound guard within one deadline per step, and
 * openid-client's own time checks (ID token `exp`, `iat`) follow the application's Clock.
 *
 * A sign-in takes two steps (the redirect, then the callback), and each needs the issuer's
 * metadata and the callback its signing keys: both are kept per issuer in this process, the
 * metadata for PROVIDER_METADATA_TTL_MS, the keys as long as openid-client deems them fresh (it
 * reads them again after five minutes, or sooner for a key id it does not know).
 */
@Injectable()
export class IdentityProviderClient {
  private readonly guard: OutboundGuard;
  private readonly discovered = new Map<string, DiscoveredProvider>();

  constructor(
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.guard = outboundGuardFor(config);
  }

  /** A deadline for one step (a settings check, a login redirect, a callback): all its calls share it. */
  deadline(): AbortSignal {
    return AbortSignal.timeout(this.config.identityProviderTimeoutMs ?? DEFAULT_TIMEOUT_MS);
  }

  fetchFor(deadline: AbortSignal): ProviderFetch {
    return identityProviderFetch(this.guard, deadline);
  }

  /**
   * The client configuration for one step, its calls bound to `deadline`: from the issuer's kept
   * metadata when fresh, else by discovery, where the discovered `issuer` must equal the
   * configured one (openid-client checks). Rejects as openid-client does; see isProviderUnavailable().
   */
  async configure(settings: ActiveOidcSettings, deadline: AbortSignal): Promise<client.Configuration> {
    const timeoutSeconds = Math.ceil((this.config.identityProviderTimeoutMs ?? DEFAULT_TIMEOUT_MS) / 1000);
    const clientMetadata: Partial<client.ClientMetadata> = {
      ...(settings.clientSecret !== null ? { client_secret: settings.clientSecret } : {}),
      // openid-client checks exp/iat/nbf against Date.now() + skew: this makes it the app's Clock.
      [client.clockSkew]: (this.clock.now().getTime() - Date.now()) / 1000,
    };
    const auth = settings.clientSecret !== null ? client.ClientSecretBasic(settings.clientSecret) : client.None();
    const fetch = this.fetchFor(deadline);
    // The ID token's signature is checked against the JWKS too, not only trusted for coming over
    // TLS from the token endpoint (which openid-client would otherwise accept, OIDC Core 3.1.3.7).
    const extensions = [client.enableNonRepudiationChecks, ...(allowsPlainHttp(settings.issuerUrl) ? [client.allowInsecureRequests] : [])];

    const known = this.discovered.get(settings.issuerUrl);
    if (known !== undefined && this.clock.now().getTime() - known.discoveredAt < PROVIDER_METADATA_TTL_MS) {
      const configuration = new client.Configuration(known.metadata, settings.clientId, clientMetadata, auth);
      configuration[client.customFetch] = fetch;
      configuration.timeout = timeoutSeconds;
      for (const extend of extensions) extend(configuration);
      if (known.keys !== undefined) client.setJwksCache(configuration, known.keys);
      return configuration;
    }
    const configuration = await client.discovery(new URL(settings.issuerUrl), settings.clientId, clientMetadata, auth, {
      [client.customFetch]: fetch,
      timeout: timeoutSeconds,
      execute: extensions,
    });
    // One issuer is configured at a time: what was kept for an earlier one goes.
    this.discovered.clear();
    this.discovered.set(settings.issuerUrl, { metadata: configuration.serverMetadata(), discoveredAt: this.clock.now().getTime() });
    return configuration;
  }

  /** After a step that succeeded: keeps the signing keys it read, for the next sign-in. */
  keepKeys(issuerUrl: string, configuration: client.Configuration): void {
    const known = this.discovered.get(issuerUrl);
    const keys = client.getJwksCache(configuration);
    if (known !== undefined && keys !== undefined) known.keys = keys;
  }

  /** After a step that failed, or settings that changed: the next step discovers the issuer again. */
  forget(issuerUrl: string): void {
    this.discovered.delete(issuerUrl);
  }
}

/** The chain of causes of an error, itself first. */
function causes(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let current = error; current !== undefined && current !== null && chain.length < 10;) {
    chain.push(current);
    current = (current as { cause?: unknown }).cause;
  }
  return chain;
}

/**
 * Whether a failure of openid-client means the provider is unreachable, slow or broken (502),
 * rather than that what it sent does not verify (401): our fetch's errors, timeouts and aborts,
 * answers that are not the JSON the protocol asks for, and 5xx answers.
 */
export function isProviderUnavailable(error: unknown): boolean {
  return causes(error).some((cause) => {
    if (cause instanceof IdentityProviderUnavailableError) return true;
    if (cause instanceof DOMException && (cause.name === 'TimeoutError' || cause.name === 'AbortError')) return true;
    if (cause instanceof Response) return cause.status >= 500;
    if (cause instanceof client.ResponseBodyError) return cause.status >= 500;
    const code = (cause as { code?: unknown }).code;
    return (
      code === 'OAUTH_TIMEOUT' ||
      code === 'OAUTH_ABORT' ||
      code === 'OAUTH_RESPONSE_IS_NOT_JSON' ||
      code === 'OAUTH_RESPONSE_IS_NOT_CONFORM'
    );
  });
}

/** A short reason for logs and messages: the first cause's message, without secrets (none are in them). */
export function describeFailure(error: unknown): string {
  const messages = causes(error)
    .map((cause) => (cause instanceof Error ? cause.message : null))
    .filter((message): message is string => !!message);
  return messages.slice(0, 2).join(': ') || 'unknown error';
}
