import { Module } from '@nestjs/common';
import { ScannersModule } from '../scanners/scanners.module';
import { UsersModule } from '../users/users.module';
import { FirstStartService } from './first-start.service';

@Module({ imports: [UsersModule, ScannersModule], providers: [FirstStartService] })
export class BootstrapModule {}
