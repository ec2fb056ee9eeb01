import { Global, Module } from '@nestjs/common';
import { AppMetrics } from './app-metrics';
import { MetricsController } from './metrics.controller';
import { MetricsRepository } from './metrics.repository';
import { MetricsService } from './metrics.service';

/**
 * Prometheus metrics (docs/api-contract.md section 12). Global so that any module can count into
 * the application's registry (the alert job does) without importing this one.
 */
@Global()
@Module({
  controllers: [MetricsController],
  providers: [AppMetrics, MetricsRepository, MetricsService],
  exports: [AppMetrics],
})
export class MetricsModule {}
