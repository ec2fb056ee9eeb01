import { Controller, HttpCode, HttpStatus, Post } from '@nestjs/common';
import { ApiConflictResponse, ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '../../common/auth/route-access';
import { RETRY_AFTER_HEADERS } from '../../common/http/response-headers';
import { RetryLaterException } from '../../common/http/retry-later.exception';
import { AdvisoryLockWaitExceeded } from '../../database/advisory-lock';
import { ALERT_FAILURE_REASONS, type AlertFailureReason, type AlertTotals, AlertsService } from './alerts.service';

export class AlertFailureCountDto {
  @ApiProperty({
    enum: ALERT_FAILURE_REASONS,
    description:
      'How the SMTP round trip failed (docs/api-contract.md section 6), never the text the relay sent; ' +
      '`internal` when the database or the job failed rather than the relay.',
  })
  reason!: AlertFailureReason;
  @ApiProperty({ type: 'integer', nullable: true, description: 'The reply code the relay answered with (550), when it answered with one.' })
  replyCode!: number | null;
  @ApiProperty({ type: 'integer', minimum: 1 }) count!: number;
}

export class AlertTotalsDto {
  @ApiProperty({ type: 'integer' }) alertsSent!: number;
  @ApiProperty({ type: 'integer' }) alreadySent!: number;
  @ApiProperty({ type: 'integer', description: 'Not accepted by the SMTP server; retried on the next run.' }) failed!: number;
  @ApiProperty({
    type: [AlertFailureCountDto],
    description: 'The failed alerts counted by reason and reply code, most frequent first; empty when none failed.',
  })
  failures!: AlertFailureCountDto[];
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
      'alerts already sent by earlier runs, and alerts the SMTP server did not accept, which the next run retries, ' +
      'with `failures` counting those by how they failed (refused, timeout, TLS, authentication, rejected with its reply code...). ' +
      'With mail disabled or not configured nothing is sent and every total is 0.',
  })
  @HttpCode(200)
  @RequirePermission('settings:edit')
  @ApiOkResponse({ type: AlertTotalsDto, description: 'Runs the alert job now (after any run in progress) and returns its totals.' })
  @ApiConflictResponse({
    description: 'A run in progress on another replica lasted longer than 10 minutes; try again after Retry-After seconds.',
    headers: RETRY_AFTER_HEADERS,
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
