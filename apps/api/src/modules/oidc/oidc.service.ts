import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { SessionIssuer, type SignedIn } from '../sessions/session-issuer';
import { OidcFlowService, type RequestOrigin } from './oidc-flow.service';
import { OidcLoginCodesService } from './oidc-login-codes.service';
import { OidcSettingsService } from './oidc-settings.service';
import { OidcSignInService } from './oidc-sign-in.service';
import type { OidcStatusDto } from './oidc.dto';

export const LOGIN_PATH = '/api/v1/auth/oidc/login';

/** Where the web interface takes the one-time code. */
const WEB_LANDING_PATH = '/login/oidc';

/** The OIDC sign-in routes' work, one method per route (docs/api-contract.md section 9). */
@Injectable()
export class OidcService {
  constructor(
    private readonly settings: OidcSettingsService,
    private readonly flow: OidcFlowService,
    private readonly signIn: OidcSignInService,
    private readonly codes: OidcLoginCodesService,
    private readonly sessions: SessionIssuer,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async status(): Promise<OidcStatusDto> {
    const { enabled, buttonLabel } = await this.settings.publicView();
    const base = this.config.publicUrl === null ? '' : this.config.publicUrl.replace(/\/+$/, '');
    return { enabled, buttonLabel, loginUrl: `${base}${LOGIN_PATH}` };
  }

  login(redirect: string | undefined, origin: RequestOrigin): Promise<{ authorizationUrl: string; sealedFlow: string }> {
    return this.flow.start(redirect, origin);
  }

  /** Finishes the sign-in and answers where to send the browser: the web interface with a one-time code. */
  async callback(query: URLSearchParams, sealedFlow: string | undefined, requestId: string | null): Promise<string> {
    const identity = await this.flow.finish(query, sealedFlow);
    const user = await this.signIn.resolveUser(identity, requestId);
    const code = await this.codes.issue(user, identity.flowHash);
    const target = new URL(`${identity.returnBase}${WEB_LANDING_PATH}`);
    target.searchParams.set('code', code);
    if (identity.redirect !== null) target.searchParams.set('redirect', identity.redirect);
    return target.href;
  }

  /** The session for a one-time code, presented with the flow cookie of the browser that started its sign-in. */
  async exchange(code: string, sealedFlow: string | undefined): Promise<SignedIn> {
    return this.sessions.issue(await this.codes.redeem(code, this.flow.flowHashOf(sealedFlow)), 'oidc');
  }
}
