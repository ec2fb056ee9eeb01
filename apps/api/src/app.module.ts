import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { Clock, SystemClock } from './common/clock';
import { PlainTextExceptionFilter } from './common/http/plain-text-exception.filter';
import { APP_CONFIG, type AppConfig } from './config/app-config';
import { DatabaseModule } from './database/database.module';
import { ApiKeysModule } from './modules/api-keys/api-keys.module';
import { AuditModule } from './modules/audit/audit.module';
import { AuthModule } from './modules/auth/auth.module';
import { BootstrapModule } from './modules/bootstrap/bootstrap.module';
import { CertificatesModule } from './modules/certificates/certificates.module';
import { EndpointsModule } from './modules/endpoints/endpoints.module';
import { HealthModule } from './modules/health/health.module';
import { IngestModule } from './modules/ingest/ingest.module';
import { ScannersModule } from './modules/scanners/scanners.module';
import { UsersModule } from './modules/users/users.module';

/** Process-wide values every module may inject: the resolved configuration and the clock. */
@Module({})
class CoreModule {
  static forRoot(config: AppConfig, clock: Clock): DynamicModule {
    return {
      module: CoreModule,
      global: true,
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: Clock, useValue: clock },
      ],
      exports: [APP_CONFIG, Clock],
    };
  }
}

export interface AppModuleOptions {
  clock?: Clock;
}

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, options: AppModuleOptions = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        CoreModule.forRoot(config, options.clock ?? new SystemClock()),
        DatabaseModule.forRoot(config.databaseUrl),
        AuditModule,
        AuthModule,
        UsersModule,
        ApiKeysModule,
        ScannersModule,
        EndpointsModule,
        CertificatesModule,
        IngestModule,
        HealthModule,
        BootstrapModule,
      ],
      providers: [{ provide: APP_FILTER, useClass: PlainTextExceptionFilter }],
    };
  }
}
