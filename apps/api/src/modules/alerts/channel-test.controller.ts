import {
  BadGatewayException,
  Controller,
  HttpCode,
  Inject,
  Param,
  ParseUUIDPipe,
  Post,
  UnprocessableEntityException,
} from '@nestjs/common';
import { ApiBadGatewayResponse, ApiNoContentResponse, ApiOperation, ApiTags, ApiUnprocessableEntityResponse } from '@nestjs/swagger';
import { RequirePermission } from '../../common/auth/route-access';
import { ChannelsService } from '../channels/channels.service';
import { isChannelSender } from './senders/channel-sender';
import type { NotificationSender } from './senders/notification-sender';
import { SENDERS } from './senders/senders';

/** The test message of a notification channel, sent by the alert job's own sender for its kind. */
@ApiTags('settings')
@Controller('notification-channels')
export class ChannelTestController {
  constructor(
    private readonly channels: ChannelsService,
    @Inject(SENDERS) private readonly senders: NotificationSender[],
  ) {}

  @Post(':id/test')
  @ApiOperation({
    summary: 'Send a test message to a notification channel',
    description:
      'Needs `settings:edit`. Sends an event of type `test` now, enabled or not, as the alert job would (same request rules: ' +
      '10-second deadline, no redirect followed, OUTBOUND_DENY); the attempt is logged in its deliveries. ' +
      '204 when the receiver answered 2xx; 502 saying how it failed otherwise (its HTTP status at most, never its text); ' +
      '422 when the stored URL or secret cannot be decrypted; 404 for an unknown id.',
  })
  @HttpCode(204)
  @RequirePermission('settings:edit')
  @ApiNoContentResponse({ description: 'The receiver answered 2xx.' })
  @ApiBadGatewayResponse({ description: 'The receiver did not answer 2xx, or could not be reached.' })
  @ApiUnprocessableEntityResponse({ description: 'The stored URL or secret cannot be decrypted with the current ENCRYPTION_KEY.' })
  async sendTest(@Param('id', ParseUUIDPipe) id: string): Promise<void> {
    const channel = await this.channels.openChannel(id);
    if (!channel)
      throw new UnprocessableEntityException(
        'The stored URL or secret cannot be decrypted with the current ENCRYPTION_KEY; set them again.',
      );
    const sender = this.senders.filter(isChannelSender).find((s) => s.channel === channel.kind)!;
    const outcome = await sender.sendTest(channel, new AbortController().signal);
    if (outcome.status === 'failed') throw new BadGatewayException(`The test message failed: ${outcome.failure.description}.`);
  }
}
