import { Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
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
  @ApiOperation({
    summary: 'Run the alert job now',
    description:
      'Needs `settings:edit`. ' +
      'Runs the expiry alert job at once (after a run in progress on any replica has finished) and answers its totals: alerts sent, ' +
      'alerts already sent by earlier runs, and alerts the SMTP server did not accept, which the next run retries. ' +
      'With mail disabled or not configured nothing is sent and every total is 0.',
  })
  @HttpCode(200)
  @RequirePermission('settings:edit')
  @ApiOkResponse({ type: AlertTotalsDto, description: 'Runs the alert job now (after any run in progress) and returns its totals.' })
  runAlertJob(): Promise<AlertTotals> {
    return this.alerts.runJob();
  }
}
