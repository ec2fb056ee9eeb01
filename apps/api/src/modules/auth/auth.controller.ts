import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { Public } from '../../common/auth/route-access';
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
      'An unknown e-mail, a wrong password and a disabled account all get the same 401.',
  })
  @HttpCode(200)
  @Public()
  @ApiOkResponse({ type: LoginResponseDto })
  @ApiUnauthorizedResponse({
    description: 'Unknown e-mail, wrong password or disabled account (one answer for all three).',
    content: { 'text/plain': { schema: { type: 'string' } } },
  })
  login(@Body() dto: LoginDto): Promise<LoginResponseDto> {
    return this.auth.login(dto.email, dto.password);
  }
}
