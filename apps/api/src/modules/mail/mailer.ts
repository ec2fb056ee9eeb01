import { Injectable } from '@nestjs/common';
import { createTransport } from 'nodemailer';
import type { SmtpSettings } from './mail-config';

export interface OutgoingMessage {
  to: string;
  subject: string;
  /** Null sends the text alone (a template written as plain text); otherwise HTML with the text as its alternative. */
  html: string | null;
  text: string;
}

/** Every SMTP step has a deadline, so a silent relay cannot stall the alert job. */
const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000, dnsTimeout: 10_000 };

export class SmtpDeliveryError extends Error {}

/**
 * Sends one message over SMTP: no TLS, STARTTLS (required) or implicit TLS; no auth, PLAIN or
 * LOGIN. Resolves once the server accepted the message for its recipient; rejects otherwise.
 */
/** One SMTP connection pool for a batch of messages (an alert run); close it when done. */
export interface MailSession {
  send(message: OutgoingMessage): Promise<void>;
  close(): void;
}

/**
 * Sends messages over SMTP: no TLS, STARTTLS (required) or implicit TLS; no auth, PLAIN or
 * LOGIN. A send resolves once the server accepted the message for its recipient.
 */
@Injectable()
export class Mailer {
  openSession(settings: SmtpSettings): MailSession {
    const transport = createTransport({
      pool: true,
      maxConnections: 2,
      host: settings.host,
      port: settings.port,
      secure: settings.tlsMode === 'tls',
      requireTLS: settings.tlsMode === 'starttls',
      ignoreTLS: settings.tlsMode === 'none',
      auth:
        settings.auth === 'none'
          ? undefined
          : { user: settings.username ?? '', pass: settings.password ?? '', method: settings.auth === 'login' ? 'LOGIN' : 'PLAIN' },
      tls: { rejectUnauthorized: !settings.allowInvalidCertificate, servername: settings.host },
      ...SMTP_TIMEOUTS,
    });
    const from = { name: settings.fromName ?? 'Certkeeper', address: settings.fromAddress };
    return {
      send: async (message) => {
        try {
          const info = await transport.sendMail({ from, to: message.to, subject: message.subject, html: message.html ?? undefined, text: message.text });
          if (info.accepted.length === 0) throw new SmtpDeliveryError(`the server accepted no recipient: ${info.response}`);
        } catch (error) {
          if (error instanceof SmtpDeliveryError) throw error;
          throw new SmtpDeliveryError(describeSmtpFailure(error));
        }
      },
      close: () => transport.close(),
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
}

/** The SMTP error without anything secret: the code and the server's words. */
function describeSmtpFailure(error: unknown): string {
  const failure = error as { code?: string; responseCode?: number; response?: string; message?: string };
  if (failure.responseCode) return `SMTP ${failure.responseCode}: ${failure.response ?? failure.message ?? ''}`.trim();
  return [failure.code, failure.message].filter(Boolean).join(': ') || 'the SMTP round trip failed';
}
