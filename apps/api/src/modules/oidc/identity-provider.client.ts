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
 * Talks to the configured identity provider through openid-client, the certified relying-party
 * library: every call goes through the outbound guard within one deadline per step, and
 * openid-client's own time checks (ID token `exp`, `iat`) follow the application's Clock.
 */
@Injectable()
export class IdentityProviderClient {
  private readonly guard: OutboundGuard;

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
   * Discovers the issuer and returns the client configuration; the discovered `issuer` must equal
   * the configured one (openid-client checks). Rejects as openid-client does; see classify().
   */
  async configure(settings: ActiveOidcSettings, deadline: AbortSignal): Promise<client.Configuration> {
    const timeoutSeconds = Math.ceil((this.config.identityProviderTimeoutMs ?? DEFAULT_TIMEOUT_MS) / 1000);
    const metadata: Partial<client.ClientMetadata> = {
      ...(settings.clientSecret !== null ? { client_secret: settings.clientSecret } : {}),
      // openid-client checks exp/iat/nbf against Date.now() + skew: this makes it the app's Clock.
      [client.clockSkew]: (this.clock.now().getTime() - Date.now()) / 1000,
    };
    const auth = settings.clientSecret !== null ? client.ClientSecretBasic(settings.clientSecret) : client.None();
    return client.discovery(new URL(settings.issuerUrl), settings.clientId, metadata, auth, {
      [client.customFetch]: this.fetchFor(deadline),
      timeout: timeoutSeconds,
      // The ID token's signature is checked against the JWKS too, not only trusted for coming over
      // TLS from the token endpoint (which openid-client would otherwise accept, OIDC Core 3.1.3.7).
      execute: [client.enableNonRepudiationChecks, ...(allowsPlainHttp(settings.issuerUrl) ? [client.allowInsecureRequests] : [])],
    });
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
