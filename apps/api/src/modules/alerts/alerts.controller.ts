import { Controller, HttpCode, HttpStatus, Post } from '@nestjs/common';
import { ApiConflictResponse, ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '../../common/auth/route-access';
import { RetryLaterException } from '../../common/http/retry-later.exception';
import { AdvisoryLockWaitExceeded } from '../../database/advisory-lock';
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
      'Runs the expiry alert job at once (after a run in progress on any replica has finished; 409 if that takes over 10 minutes) and answers its totals: alerts sent, ' +
      'alerts already sent by earlier runs, and alerts the SMTP server did not accept, which the next run retries. ' +
      'With mail disabled or not configured nothing is sent and every total is 0.',
  })
  @HttpCode(200)
  @RequirePermission('settings:edit')
  @ApiOkResponse({ type: AlertTotalsDto, description: 'Runs the alert job now (after any run in progress) and returns its totals.' })
  @ApiConflictResponse({
    description: 'A run in progress on another replica lasted longer than 10 minutes; try again after Retry-After seconds.',
  })
  async runAlertJob(): Promise<AlertTotals> {
    try {
      return await this.alerts.runJob();
    } catch (error) {
      if (error instanceof AdvisoryLockWaitExceeded)
        throw new RetryLaterException(
          `An alert run in progress on another replica is still going after ${Math.round(error.maxWaitMs / 60_000)} minutes; try again later.`,
          60,
          HttpStatus.CONFLICT,
        );
      throw error;
    }
  }
}
