import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiTooManyRequestsResponse,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { UserPrincipal } from '../../common/auth/principal';
import { CurrentUser, Public, RequirePermission } from '../../common/auth/route-access';
import { ClientAddress } from '../../common/http/client-address';
import { LoginDto, LoginResponseDto } from './auth.dto';
import { AuthService } from './auth.service';

@ApiTags('auth')
@Controller('auth')
export class AuthController {
  constructor(private readonly auth: AuthService) {}

  @Post('login')
  @ApiOperation({
    summary: 'Sign in with e-mail and password',
    description:
      'Public. Answers a JWT to send as `Authorization: ' +
      'Bearer <token>`, its expiry (12 hours after sign-in unless `JWT_TTL` says otherwise) and the signed-in user. ' +
      'An unknown e-mail, a wrong password and a disabled account all get the same 401. ' +
      'Ten failures for one e-mail address from one client address, or a hundred from one client address, within 15 minutes ' +
      'answer 429 with `Retry-After` to that address (even for the right password) until the window has passed; a success ' +
      "resets that pair's count. The right password from another address still signs in.",
  })
  @HttpCode(200)
  @Public()
  @ApiOkResponse({ type: LoginResponseDto })
  @ApiUnauthorizedResponse({
    description: 'Unknown e-mail, wrong password or disabled account (one answer for all three).',
    content: { 'text/plain': { schema: { type: 'string' } } },
  })
  @ApiTooManyRequestsResponse({
    description:
      'Too many failed attempts for this account from this address, or from this address; `Retry-After` says how many seconds to wait.',
    content: { 'text/plain': { schema: { type: 'string' } } },
  })
  login(@Body() dto: LoginDto, @ClientAddress() address: string): Promise<LoginResponseDto> {
    return this.auth.login(dto.email, dto.password, address);
  }

  @Post('logout')
  @ApiOperation({
    summary: 'Sign out',
    description:
      'Needs `self:access`. Ends the session of the calling JWT: from now on that token gets 401, on every replica. ' +
      'Other sessions of the same user are untouched. 400 when called with an API key (delete the key instead).',
  })
  @HttpCode(204)
  @RequirePermission('self:access')
  @ApiNoContentResponse()
  @ApiBadRequestResponse({ description: 'Called with an API key, which is not a session.' })
  logout(@CurrentUser() caller: UserPrincipal): Promise<void> {
    return this.auth.logout(caller);
  }
}
