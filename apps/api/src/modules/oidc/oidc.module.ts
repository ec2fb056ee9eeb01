import { Module } from '@nestjs/common';
import { SessionsModule } from '../sessions/sessions.module';
import { SettingsModule } from '../settings/settings.module';
import { UsersModule } from '../users/users.module';
import { IdentityProviderClient } from './identity-provider.client';
import { OidcCodesRepository } from './oidc-codes.repository';
import { OidcFlowService } from './oidc-flow.service';
import { OidcLoginCodesService } from './oidc-login-codes.service';
import { OidcSettingsController } from './oidc-settings.controller';
import { OidcSettingsService } from './oidc-settings.service';
import { OidcSignInService } from './oidc-sign-in.service';
import { OidcController } from './oidc.controller';
import { OidcService } from './oidc.service';

/** OpenID Connect sign-in (docs/api-contract.md section 9, docs/decisions/0008-openid-connect.md). */
@Module({
  imports: [SessionsModule, SettingsModule, UsersModule],
  controllers: [OidcController, OidcSettingsController],
  providers: [
    IdentityProviderClient,
    OidcSettingsService,
    OidcFlowService,
    OidcSignInService,
    OidcLoginCodesService,
    OidcCodesRepository,
    OidcService,
  ],
})
export class OidcModule {}
