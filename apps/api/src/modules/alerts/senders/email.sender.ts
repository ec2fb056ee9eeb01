import { Injectable, Logger } from '@nestjs/common';
import { Mailer, SmtpDeliveryError } from '../../mail/mailer';
import { SettingsService } from '../../settings/settings.service';
import { TemplatesService } from '../../templates/templates.service';
import { alertMessageId } from './alert-message-id';
import type { NotificationSender, SenderSession } from './notification-sender';

/** E-mail over the configured SMTP relay: one pooled session per run, the template rendered for each message. */
@Injectable()
export class EmailSender implements NotificationSender {
  readonly channel = 'email';
  readonly deliveryNoun = 'Alert e-mail';
  private readonly logger = new Logger('Alerts');

  constructor(
    private readonly settings: SettingsService,
    private readonly templates: TemplatesService,
    private readonly mailer: Mailer,
  ) {}

  async open(): Promise<SenderSession | null> {
    const smtp = await this.settings.smtpSettings();
    if (!smtp) {
      this.logger.log('Mail is disabled or not configured; no alerts sent.');
      return null;
    }
    const render = await this.templates.renderer();
    const session = this.mailer.openSession(smtp);
    return {
      send: async (notification, { signal }) => {
        signal.throwIfAborted();
        const message = render(notification.eventType, notification.values);
        const messageId = alertMessageId({ ...notification, userId: notification.recipient.userId! }, smtp.fromAddress);
        try {
          await session.send({ to: notification.recipient.address, messageId, ...message });
          return { status: 'delivered' };
        } catch (error) {
          if (!(error instanceof SmtpDeliveryError)) throw error;
          const { reason, replyCode } = error.failure;
          return { status: 'failed', failure: { reason, replyCode, description: error.message } };
        }
      },
      close: () => session.close(),
    };
  }
}
