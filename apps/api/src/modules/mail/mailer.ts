import { isIP } from 'node:net';
import { Inject, Injectable } from '@nestjs/common';
import type { OutboundGuard } from '@certkeeper/net';
import { createTransport, type Transporter } from 'nodemailer';
import type SMTPPool from 'nodemailer/lib/smtp-pool';
import { outboundGuardFor } from '../../common/net/outbound-guard';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import type { SmtpSettings } from './mail-config';
import { classifySmtpFailure, describeSmtpFailure, type SmtpFailure } from './smtp-failure';

export interface OutgoingMessage {
  to: string;
  subject: string;
  /** Null sends the text alone (a template written as plain text); otherwise HTML with the text as its alternative. */
  html: string | null;
  text: string;
  /** `<id@domain>`; absent: nodemailer makes a random one. Alerts set theirs (senders/alert-message-id.ts). */
  messageId?: string;
}

/** Every SMTP step has a deadline, so a silent relay cannot stall the alert job. Tests shorten them. */
export const smtpTimeouts = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000, dnsTimeout: 10_000 };

/** A send the relay did not accept: how it failed, and that as a sentence without the relay's text. */
export class SmtpDeliveryError extends Error {
  constructor(readonly failure: SmtpFailure) {
    super(describeSmtpFailure(failure));
    this.name = 'SmtpDeliveryError';
  }
}

type PooledTransport = Transporter<SMTPPool.SentMessageInfo, SMTPPool.Options>;

/** One SMTP connection pool for a batch of messages (an alert run); close it when done. */
export interface MailSession {
  send(message: OutgoingMessage): Promise<void>;
  close(): void;
}

/**
 * Sends messages over SMTP: no TLS, STARTTLS (required) or implicit TLS; no auth, PLAIN or
 * LOGIN. A send resolves once the server accepted the message for its recipient, and otherwise
 * rejects with an SmtpDeliveryError saying how it failed (smtp-failure.ts).
 *
 * The relay's host is resolved here and checked against OUTBOUND_DENY, and nodemailer is given
 * the checked address, so it never resolves the name again (DNS rebinding); certificates are
 * still checked against the configured name (`tls.servername`). A refused relay fails every send
 * of the session with the guard's sentence.
 */
@Injectable()
export class Mailer {
  private readonly guard: OutboundGuard;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.guard = outboundGuardFor(config);
  }

  openSession(settings: SmtpSettings): MailSession {
    // Opened on the first message, once per session: a session that sends nothing resolves nothing.
    let opened: Promise<PooledTransport> | undefined;
    const transport = () => (opened ??= this.openTransport(settings));
    const from = { name: settings.fromName ?? 'Certkeeper', address: settings.fromAddress };
    return {
      send: async (message) => {
        try {
          const pool = await transport();
          const info = await pool.sendMail({
            from,
            to: message.to,
            subject: message.subject,
            html: message.html ?? undefined,
            text: message.text,
            messageId: message.messageId,
          });
          if (info.accepted.length === 0)
            throw new SmtpDeliveryError({ reason: 'rejected', replyCode: null, step: 'RCPT TO', detail: null });
        } catch (error) {
          if (error instanceof SmtpDeliveryError) throw error;
          throw new SmtpDeliveryError(classifySmtpFailure(error));
        }
      },
      // A refused or unresolvable relay left nothing open to close.
      close: () => void opened?.then((pool) => pool.close(), ignore),
    };
  }

  async send(settings: SmtpSettings, message: OutgoingMessage): Promise<void> {
    const session = this.openSession(settings);
    try {
      await session.send(message);
    } finally {
      session.close();
    }
  }

  private async openTransport(settings: SmtpSettings): Promise<PooledTransport> {
    // The first address of the name: the pool dials that one only (nodemailer would try the others).
    const [relay] = await withDeadline(this.guard.resolve(settings.host), smtpTimeouts.dnsTimeout);
    return createTransport({
      pool: true,
      maxConnections: 2,
      host: relay.address,
      port: settings.port,
      secure: settings.tlsMode === 'tls',
      requireTLS: settings.tlsMode === 'starttls',
      ignoreTLS: settings.tlsMode === 'none',
      auth:
        settings.auth === 'none'
          ? undefined
          : { user: settings.username ?? '', pass: settings.password ?? '', method: settings.auth === 'login' ? 'LOGIN' : 'PLAIN' },
      // SNI and the certificate check use the configured name; an IP literal is checked as itself.
      tls: { rejectUnauthorized: !settings.allowInvalidCertificate, servername: isIP(settings.host) === 0 ? settings.host : undefined },
      ...smtpTimeouts,
    });
  }
}

const ignore = () => undefined;

/**
 * getaddrinfo cannot be cancelled, but the send need not wait for it past the deadline. The
 * error carries the resolver's own code for a timeout (ETIMEOUT), so it is classified as DNS.
 */
function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = () => Object.assign(new Error(`name resolution took longer than ${ms} ms`), { code: 'ETIMEOUT' });
  const deadline = new Promise<never>((_resolve, reject) => (timer = setTimeout(() => reject(timedOut()), ms)));
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
