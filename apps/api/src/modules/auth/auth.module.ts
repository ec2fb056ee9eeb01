import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { JwtModule } from '@nestjs/jwt';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { ScannersModule } from '../scanners/scanners.module';
import { UsersModule } from '../users/users.module';
import { AccessGuard } from './access.guard';
import { AuthController } from './auth.controller';
import { AuthService } from './auth.service';
import { Authenticator } from './authenticator';

@Module({
  imports: [JwtModule.register({}), UsersModule, ApiKeysModule, ScannersModule],
  controllers: [AuthController],
  providers: [AuthService, Authenticator, { provide: APP_GUARD, useClass: AccessGuard }],
})
export class AuthModule {}
