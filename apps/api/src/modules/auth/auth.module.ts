import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { APPLICATION_ID } from '../../config/app-config';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { ScannersModule } from '../scanners/scanners.module';
import { SessionsModule } from '../sessions/sessions.module';
import { UsersModule } from '../users/users.module';
import { AccessGuard } from './access.guard';
import { AuthController } from './auth.controller';
import { AuthService } from './auth.service';
import { strategyNames, TokenStrategies } from './token-strategies';

@Module({
  imports: [
    // Sessions are never used: every request carries its bearer token.
    PassportModule.registerAsync({
      inject: [APPLICATION_ID],
      useFactory: (applicationId: string) => ({ defaultStrategy: strategyNames(applicationId).jwt, session: false }),
    }),
    UsersModule,
    ApiKeysModule,
    ScannersModule,
    SessionsModule,
  ],
  controllers: [AuthController],
  providers: [AuthService, TokenStrategies, { provide: APP_GUARD, useClass: AccessGuard }],
})
export class AuthModule {}
