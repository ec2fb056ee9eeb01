import { Body, Controller, Get, HttpCode, Inject, Post, Query, Req, Res } from '@nestjs/common';
import {
  ApiBadGatewayResponse,
  ApiBadRequestResponse,
  ApiForbiddenResponse,
  ApiFoundResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public } from '../../common/auth/route-access';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { LoginResponseDto } from '../auth/auth.dto';
import { FLOW_LIFETIME_MS } from './oidc-flow.service';
import { LOGIN_CODE_LIFETIME_MS } from './oidc-login-codes.service';
import { OidcExchangeDto, OidcLoginQueryDto, OidcStatusDto } from './oidc.dto';
import { OidcService } from './oidc.service';

/**
 * The flow cookie: sealed flow state, sent back only to the OIDC routes. It names the browser from
 * the start of a sign-in until its one-time code is exchanged (docs/api-contract.md section 9).
 */
const FLOW_COOKIE = 'certkeeper_oidc_flow';

const plainText = (description: string) => ({ description, content: { 'text/plain': { schema: { type: 'string' } } } });

@ApiTags('auth')
@Controller('auth/oidc')
export class OidcController {
  constructor(
    private readonly oidc: OidcService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'Whether OIDC sign-in is offered',
    description: 'Public. What the sign-in page needs to show the OIDC button: whether it is enabled, its label and where it leads.',
  })
  @Public()
  @ApiOkResponse({ type: OidcStatusDto })
  getOidcStatus(): Promise<OidcStatusDto> {
    return this.oidc.status();
  }

  @Get('login')
  @ApiOperation({
    summary: 'Start an OIDC sign-in',
    description:
      "Public. Answers 302 to the identity provider's authorization endpoint (authorization code flow, PKCE S256, `state`, " +
      '`nonce`) and sets the flow cookie: the flow state sealed with the ENCRYPTION_KEY (encrypted and authenticated), HttpOnly, ' +
      'SameSite=Lax, Path=/api/v1/auth/oidc, Secure when PUBLIC_URL (or the request) is https, valid 10 minutes. Any replica with ' +
      "the same ENCRYPTION_KEY finishes the flow. The redirect_uri is `{PUBLIC_URL}/api/v1/auth/oidc/callback`, or the request's " +
      'own protocol and Host when PUBLIC_URL is not set. 400 when `redirect` is not a path on this site, 404 when OIDC sign-in is ' +
      'not enabled, 502 when the provider cannot be reached within 10 seconds.',
  })
  @Public()
  @ApiFoundResponse({ description: "Redirect to the provider's authorization endpoint; sets the flow cookie." })
  @ApiBadRequestResponse(plainText('`redirect` is not a relative path on this site.'))
  @ApiNotFoundResponse(plainText('OIDC sign-in is not enabled.'))
  @ApiBadGatewayResponse(plainText('The identity provider could not be reached or its discovery document is unusable.'))
  async startOidcLogin(@Query() query: OidcLoginQueryDto, @Req() req: Request, @Res() res: Response): Promise<void> {
    const { authorizationUrl, sealedFlow } = await this.oidc.login(query.redirect, { protocol: req.protocol, host: req.headers.host });
    res.setHeader('Set-Cookie', this.flowCookie(req, sealedFlow, Math.floor(FLOW_LIFETIME_MS / 1000)));
    res.redirect(302, authorizationUrl);
  }

  @Get('callback')
  @ApiOperation({
    summary: 'Finish an OIDC sign-in (the redirect_uri)',
    description:
      'Public; the identity provider sends the browser here. Checks the flow cookie and `state`, refuses a replayed response on ' +
      'every replica, exchanges the code and verifies the ID token (signature from the JWKS, `iss`, `aud`, `exp`, `nonce`), then ' +
      "finds the user by the provider's subject, else by e-mail when `email_verified` is true, else creates one with the role from " +
      '`roleMapping`/`defaultRole` (audit `user:create`); with `roleClaim` set the role is recomputed (audit `user:update`; the ' +
      'last enabled administrator is never demoted). Answers 302 to `{PUBLIC_URL}/login/oidc?code=<one-time code>` (plus ' +
      "`&redirect=` when the sign-in began with one); the code is valid 60 seconds, once, and only with this browser's flow " +
      'cookie, which success keeps for those 60 seconds and a failure clears.',
  })
  @Public()
  @ApiFoundResponse({ description: 'Redirect to the web interface with a one-time code.' })
  @ApiBadRequestResponse(
    plainText('The flow cookie is missing, forged or expired, the state does not match, or the response was already used.'),
  )
  @ApiUnauthorizedResponse(plainText('The provider reported an error, or its tokens do not verify.'))
  @ApiForbiddenResponse(plainText('The user is disabled, no role applies, or the e-mail address cannot be matched safely.'))
  @ApiNotFoundResponse(plainText('OIDC sign-in is not enabled.'))
  @ApiBadGatewayResponse(plainText('The identity provider could not be reached within 10 seconds or answered badly.'))
  async finishOidcLogin(@Req() req: Request, @Res() res: Response): Promise<void> {
    const query = new URLSearchParams(req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?') + 1) : '');
    const sealedFlow = readCookie(req.headers.cookie, FLOW_COOKIE);
    // Cleared when refused: a flow is refused once.
    res.setHeader('Set-Cookie', this.flowCookie(req, '', 0));
    const location = await this.oidc.callback(query, sealedFlow, req.requestId ?? null);
    // Kept while the one-time code lives (a missing cookie was refused above): its exchange must come from this browser.
    res.setHeader('Set-Cookie', this.flowCookie(req, sealedFlow as string, Math.ceil(LOGIN_CODE_LIFETIME_MS / 1000)));
    res.redirect(302, location);
  }

  @Post('exchange')
  @ApiOperation({
    summary: 'Exchange a one-time sign-in code for a session',
    description:
      'Public. Redeems the code from `/login/oidc?code=` once and answers the same body as `POST /auth/login`. Only the browser ' +
      "that started the sign-in can: the request must carry its flow cookie (same origin, so the web interface's fetch sends " +
      'it). An unknown, used or expired code, or one presented without that cookie, is 401 and unusable from then on; a user ' +
      'disabled since the sign-in is 403. Clears the flow cookie.',
  })
  @HttpCode(200)
  @Public()
  @ApiOkResponse({ type: LoginResponseDto })
  @ApiBadRequestResponse(plainText('`code` is missing or not a string.'))
  @ApiUnauthorizedResponse(plainText('Unknown, used or expired code, or not the browser that started the sign-in.'))
  @ApiForbiddenResponse(plainText('The account is disabled.'))
  exchangeOidcCode(
    @Body() dto: OidcExchangeDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<LoginResponseDto> {
    const sealedFlow = readCookie(req.headers.cookie, FLOW_COOKIE);
    // The flow ends here, whatever the outcome: the code is consumed either way.
    res.setHeader('Set-Cookie', this.flowCookie(req, '', 0));
    return this.oidc.exchange(dto.code, sealedFlow);
  }

  private flowCookie(req: Request, value: string, maxAgeSeconds: number): string {
    const publicUrl = this.config.publicUrl === null ? null : new URL(this.config.publicUrl);
    const secure = publicUrl !== null ? publicUrl.protocol === 'https:' : req.protocol === 'https';
    const path = `${publicUrl === null ? '' : publicUrl.pathname.replace(/\/+$/, '')}/api/v1/auth/oidc`;
    return [
      `${FLOW_COOKIE}=${value}`,
      `Max-Age=${maxAgeSeconds}`,
      `Path=${path}`,
      'HttpOnly',
      'SameSite=Lax',
      ...(secure ? ['Secure'] : []),
    ].join('; ');
  }
}

function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const separator = part.indexOf('=');
    if (separator > 0 && part.slice(0, separator).trim() === name) return part.slice(separator + 1).trim();
  }
  return undefined;
}
