import { Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { LoginThrottle } from './login-throttle';
import { LoginThrottleRepository } from './login-throttle.repository';
import { SessionIssuer } from './session-issuer';
import { SessionUserCache } from './session-user-cache';
import { SessionsRepository } from './sessions.repository';
import { SignInHousekeeping } from './sign-in-housekeeping';

/**
 * Sessions and sign-in safety (docs/api-contract.md section 10): the session rows JWTs depend on,
 * the issuer every sign-in ends with, and the failed-attempt throttle. Users, auth and OIDC use it.
 */
@Module({
  imports: [JwtModule.register({})],
  providers: [SessionsRepository, SessionIssuer, SessionUserCache, LoginThrottle, LoginThrottleRepository, SignInHousekeeping],
  exports: [SessionsRepository, SessionIssuer, SessionUserCache, LoginThrottle],
})
export class SessionsModule {}
