import { randomUUID } from 'node:crypto';
import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR } from '@nestjs/core';
import { ScheduleModule } from '@nestjs/schedule';
import { Clock, SystemClock } from './common/clock';
import { BodyParsingInterceptor } from './common/http/body-parsing';
import { NoUnexpectedBodyInterceptor } from './common/http/no-body.interceptor';
import { PlainTextExceptionFilter } from './common/http/plain-text-exception.filter';
import { APP_CONFIG, APPLICATION_ID, type AppConfig } from './config/app-config';
import { DatabaseModule } from './database/database.module';
import { AlertsModule } from './modules/alerts/alerts.module';
import { ChannelsModule } from './modules/channels/channels.module';
import { ApiKeysModule } from './modules/api-keys/api-keys.module';
import { AuditModule } from './modules/audit/audit.module';
import { AuthModule } from './modules/auth/auth.module';
import { BootstrapModule } from './modules/bootstrap/bootstrap.module';
import { CalendarModule } from './modules/calendar/calendar.module';
import { CertificatesModule } from './modules/certificates/certificates.module';
import { DashboardModule } from './modules/dashboard/dashboard.module';
import { DiscoveryModule } from './modules/discovery/discovery.module';
import { EndpointsModule } from './modules/endpoints/endpoints.module';
import { HealthModule } from './modules/health/health.module';
import { ScannerProtocolModule } from './modules/scanner-protocol/scanner-protocol.module';
import { MaintenanceModule } from './modules/maintenance/maintenance.module';
import { MetricsModule } from './modules/metrics/metrics.module';
import { OidcModule } from './modules/oidc/oidc.module';
import { RotationsModule } from './modules/rotations/rotations.module';
import { ScannersModule } from './modules/scanners/scanners.module';
import { SettingsModule } from './modules/settings/settings.module';
import { TemplatesModule } from './modules/templates/templates.module';
import { TrustModule } from './modules/trust/trust.module';
import { UsersModule } from './modules/users/users.module';

/** Values every module of one application may inject: the resolved configuration, the application's id and the clock. */
@Module({})
class CoreModule {
  static forRoot(config: AppConfig, clock: Clock): DynamicModule {
    return {
      module: CoreModule,
      global: true,
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: APPLICATION_ID, useValue: config.applicationId ?? randomUUID() },
        { provide: Clock, useValue: clock },
      ],
      exports: [APP_CONFIG, APPLICATION_ID, Clock],
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
        ScheduleModule.forRoot(),
        DatabaseModule.forRoot(config.databaseUrl, config.statementTimeoutMs),
        AuditModule,
        AuthModule,
        UsersModule,
        ApiKeysModule,
        ScannersModule,
        EndpointsModule,
        RotationsModule,
        DiscoveryModule,
        CertificatesModule,
        ScannerProtocolModule,
        SettingsModule,
        TemplatesModule,
        ChannelsModule,
        AlertsModule,
        TrustModule,
        MaintenanceModule,
        CalendarModule,
        MetricsModule,
        DashboardModule,
        OidcModule,
        HealthModule,
        BootstrapModule,
      ],
      providers: [
        { provide: APP_FILTER, useClass: PlainTextExceptionFilter },
        // In this order: global interceptors run as registered, and the second looks at what the first parsed.
        { provide: APP_INTERCEPTOR, useClass: BodyParsingInterceptor },
        { provide: APP_INTERCEPTOR, useClass: NoUnexpectedBodyInterceptor },
      ],
    };
  }
}
