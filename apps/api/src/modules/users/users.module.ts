import { Module } from '@nestjs/common';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { SessionsModule } from '../sessions/sessions.module';
import { CallerScopes } from './caller-scope';
import { MeController } from './me.controller';
import { MeService } from './me.service';
import { UsersController } from './users.controller';
import { UsersRepository } from './users.repository';
import { UsersService } from './users.service';

@Module({
  imports: [SessionsModule, ApiKeysModule],
  controllers: [UsersController, MeController],
  providers: [UsersRepository, UsersService, MeService, CallerScopes],
  exports: [UsersRepository, UsersService, CallerScopes],
})
export class UsersModule {}
