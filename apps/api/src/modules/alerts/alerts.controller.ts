import { Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiProperty, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '../../common/auth/route-access';
import { type AlertTotals, AlertsService } from './alerts.service';

export class AlertTotalsDto {
  @ApiProperty({ type: 'integer' }) alertsSent!: number;
  @ApiProperty({ type: 'integer' }) alreadySent!: number;
  @ApiProperty({ type: 'integer', description: 'Not accepted by the SMTP server; retried on the next run.' }) failed!: number;
}

@ApiTags('settings')
@Controller('alerts')
export class AlertsController {
  constructor(private readonly alerts: AlertsService) {}

  @Post('run')
  @HttpCode(200)
  @RequirePermission('settings:edit')
  @ApiOkResponse({ type: AlertTotalsDto, description: 'Runs the alert job now (after any run in progress) and returns its totals.' })
  runAlertJob(): Promise<AlertTotals> {
    return this.alerts.runJob();
  }
}
