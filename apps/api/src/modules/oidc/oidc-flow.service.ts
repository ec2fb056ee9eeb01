import {
  BadGatewayException,
  BadRequestException,
  Inject,
  Injectable,
  Logger,
  NotFoundException,
  UnauthorizedException,
} from '@nestjs/common';
import * as client from 'openid-client';
import { hashToken } from '../../common/auth/secrets';
import { Clock } from '../../common/clock';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { describeFailure, IdentityProviderClient, isProviderUnavailable } from './identity-provider.client';
import { OidcCodesRepository } from './oidc-codes.repository';
import { type FlowState, isRelativeRedirect, openFlow, sealFlow } from './oidc-flow-state';
import type { ActiveOidcSettings } from './oidc-settings';
import { OidcSettingsService } from './oidc-settings.service';

/** How long a started sign-in may take at the provider. */
export const FLOW_LIFETIME_MS = 10 * 60 * 1000;

export const CALLBACK_PATH = '/api/v1/auth/oidc/callback';

// A Host header is a reg-name or an IP literal, with an optional port; anything else is not put in a URL.
const HOST_HEADER = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** How the request reached us, for building absolute URLs when PUBLIC_URL is not set. */
export interface RequestOrigin {
  protocol: string;
  host: string | undefined;
}

/** The identity the provider vouched for: its issuer, and the claims of the verified ID token (and userinfo). */
export interface VerifiedIdentity {
  issuer: string;
  subject: string;
  claims: Record<string, unknown>;
  settings: ActiveOidcSettings;
  redirect: string | null;
  returnBase: string;
  /** Names the browser that started the flow: its one-time code is exchanged only with this flow's cookie. */
  flowHash: string;
}

/**
 * The authorization code flow with PKCE (S256), `state` and `nonce`: the redirect to the provider,
 * and the callback's checks, code exchange and ID token verification, all by openid-client.
 */
@Injectable()
export class OidcFlowService {
  private readonly logger = new Logger('OIDC');

  constructor(
    private readonly settings: OidcSettingsService,
    private readonly provider: IdentityProviderClient,
    private readonly codes: OidcCodesRepository,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** PUBLIC_URL when configured, else the request's own protocol and Host (as the calendar URL). */
  publicBase(origin: RequestOrigin): string {
    if (this.config.publicUrl !== null) return this.config.publicUrl.replace(/\/+$/, '');
    if (origin.host === undefined || !HOST_HEADER.test(origin.host)) {
      throw new BadRequestException('Cannot build the sign-in address: the request has no valid Host header and PUBLIC_URL is not set.');
    }
    return `${origin.protocol}://${origin.host}`;
  }

  /** The provider's authorization URL and the sealed flow state for the cookie. */
  async start(redirect: string | undefined, origin: RequestOrigin): Promise<{ authorizationUrl: string; sealedFlow: string }> {
    if (redirect !== undefined && !isRelativeRedirect(redirect)) {
      throw new BadRequestException('redirect must be a path on this site, starting with a single "/".');
    }
    const settings = await this.activeSettings();
    const returnBase = this.publicBase(origin);
    const flow: FlowState = {
      state: client.randomState(),
      nonce: client.randomNonce(),
      codeVerifier: client.randomPKCECodeVerifier(),
      redirect: redirect ?? null,
      redirectUri: `${returnBase}${CALLBACK_PATH}`,
      returnBase,
      issuerUrl: settings.issuerUrl,
      clientId: settings.clientId,
      expiresAt: this.clock.now().getTime() + FLOW_LIFETIME_MS,
    };
    const codeChallenge = await client.calculatePKCECodeChallenge(flow.codeVerifier);
    const authorizationUrl = await this.withProvider(settings, (configuration) =>
      client.buildAuthorizationUrl(configuration, {
        redirect_uri: flow.redirectUri,
        scope: settings.scopes,
        code_challenge: codeChallenge,
        code_challenge_method: 'S256',
        state: flow.state,
        nonce: flow.nonce,
      }),
    );
    return { authorizationUrl: authorizationUrl.href, sealedFlow: sealFlow(flow, this.config.encryptionKey) };
  }

  /**
   * Checks the callback against its flow cookie (400s), refuses a replay on any replica (400),
   * exchanges the code and verifies the ID token (401 when it does not verify, 502 when the
   * provider cannot be reached within the deadline).
   */
  async finish(query: URLSearchParams, sealedFlow: string | undefined): Promise<VerifiedIdentity> {
    if (sealedFlow === undefined || sealedFlow === '') {
      throw new BadRequestException('The sign-in cookie is missing: start the sign-in again from the sign-in page.');
    }
    const flow = openFlow(sealedFlow, this.config.encryptionKey);
    if (flow === null) throw new BadRequestException('The sign-in cookie is not valid: start the sign-in again.');
    const now = this.clock.now();
    if (flow.expiresAt <= now.getTime()) throw new BadRequestException('The sign-in took too long and expired: start it again.');
    const state = query.get('state');
    if (state === null || state !== flow.state) {
      throw new BadRequestException("The sign-in response does not belong to this browser's sign-in (state mismatch).");
    }
    if (!(await this.codes.claimState(hashToken(flow.state), new Date(flow.expiresAt), now))) {
      throw new BadRequestException('This sign-in response was already used: start the sign-in again.');
    }
    const error = query.get('error');
    if (error !== null) {
      throw new UnauthorizedException(`The identity provider refused the sign-in: ${printable(error)}.`);
    }
    const settings = await this.activeSettings();
    if (settings.issuerUrl !== flow.issuerUrl || settings.clientId !== flow.clientId) {
      throw new BadRequestException('The OIDC settings changed during the sign-in: start it again.');
    }
    // redirect_uri is this URL without its query: the one the flow sent to the provider.
    const currentUrl = new URL(flow.redirectUri);
    currentUrl.search = query.toString();
    const { idClaims, userInfo } = await this.withProvider(settings, async (configuration) => {
      const tokens = await this.verifying(() =>
        client.authorizationCodeGrant(configuration, currentUrl, {
          pkceCodeVerifier: flow.codeVerifier,
          expectedState: flow.state,
          expectedNonce: flow.nonce,
          idTokenExpected: true,
        }),
      );
      const idClaims = tokens.claims();
      if (idClaims === undefined) throw new UnauthorizedException('The identity provider sent no ID token.');
      let userInfo: Record<string, unknown> = {};
      if (configuration.serverMetadata().userinfo_endpoint !== undefined && tokens.access_token) {
        userInfo = await this.verifying(() => client.fetchUserInfo(configuration, tokens.access_token, idClaims.sub));
      }
      return { idClaims, userInfo };
    });
    return {
      issuer: idClaims.iss,
      subject: idClaims.sub,
      // The ID token's own claims win over userinfo's.
      claims: { ...userInfo, ...idClaims },
      settings,
      redirect: flow.redirect,
      returnBase: flow.returnBase,
      flowHash: flowHash(flow),
    };
  }

  /**
   * The hash naming the browser whose flow cookie this is, for the exchange of its one-time code;
   * null when there is no cookie or we did not seal it. The flow's own expiry does not matter here:
   * the code's 60 seconds do.
   */
  flowHashOf(sealedFlow: string | undefined): string | null {
    const flow = sealedFlow === undefined || sealedFlow === '' ? null : openFlow(sealedFlow, this.config.encryptionKey);
    return flow === null ? null : flowHash(flow);
  }

  private async activeSettings(): Promise<ActiveOidcSettings> {
    const settings = await this.settings.active();
    if (settings === null) throw new NotFoundException('OIDC sign-in is not enabled.');
    return settings;
  }

  /**
   * Runs one step of a sign-in against the provider, its calls sharing one deadline: 502 when the
   * issuer cannot be discovered. A step that fails makes the next one discover the issuer again;
   * one that succeeds keeps the signing keys it read.
   */
  private async withProvider<T>(settings: ActiveOidcSettings, step: (configuration: client.Configuration) => T | Promise<T>): Promise<T> {
    let configuration: client.Configuration;
    try {
      configuration = await this.provider.configure(settings, this.provider.deadline());
    } catch (error) {
      this.logger.warn(`OIDC discovery of ${settings.issuerUrl} failed: ${describeFailure(error)}`);
      throw new BadGatewayException(`The identity provider could not be reached or answered badly: ${describeFailure(error)}.`);
    }
    try {
      const result = await step(configuration);
      this.provider.keepKeys(settings.issuerUrl, configuration);
      return result;
    } catch (error) {
      this.provider.forget(settings.issuerUrl);
      throw error;
    }
  }

  /** Runs a token or userinfo call: 502 when the provider is unreachable or broken, 401 when its answer does not verify. */
  private async verifying<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      const reason = describeFailure(error);
      this.logger.warn(`OIDC sign-in failed: ${reason}`);
      if (isProviderUnavailable(error))
        throw new BadGatewayException(`The identity provider could not be reached or answered badly: ${reason}.`);
      throw new UnauthorizedException(`The identity provider's answer did not verify: ${reason}.`);
    }
  }
}

/** The SHA-256 of the flow's state: random per sign-in, and readable only from the sealed cookie. */
function flowHash(flow: FlowState): string {
  return hashToken(flow.state);
}

/** A provider-supplied value as it may appear in our answer: printable ASCII, at most 100 characters. */
function printable(value: string): string {
  return value.replace(/[^\x20-\x7E]/g, '?').slice(0, 100);
}
