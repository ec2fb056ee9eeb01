import type { AddressInfo } from 'node:net';
import { mintCertificate, privateKeyPem } from '@certkeeper/domain/testing';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

export interface CapturedMail {
  to: string;
  subject: string;
  html: string;
  text: string;
  headers: ParsedMail['headers'];
}

export interface TestSmtpServer {
  port: number;
  messages: CapturedMail[];
  /** Refuse every message with 451 (a relay having trouble) until healed. */
  failing: boolean;
  /** Refuse every recipient with this reply code and text until set back to null. */
  rejection: { code: number; text: string } | null;
  /** SMTP sessions opened so far, accepted or not. */
  readonly connections: number;
  close(): Promise<void>;
}

/**
 * A real SMTP server on 127.0.0.1 that keeps every accepted message, parsed. Options choose
 * implicit TLS (`secure`), STARTTLS on a self-signed certificate, and required authentication.
 */
export async function startSmtpServer(
  options: {
    secure?: boolean;
    starttls?: boolean;
    auth?: { user: string; pass: string };
    port?: number;
    /** Told every password a client offers, right or wrong. */
    onAuthAttempt?: (password: string) => void;
    /** A slow relay: how long it takes to accept each message. */
    acceptDelayMs?: number;
    /**
     * Called with each message once the server has it, before the client hears "250": whatever
     * happens here (killing the sender) happens after acceptance and before the client knows.
     */
    onAccepted?: (mail: CapturedMail) => Promise<void> | void;
  } = {},
): Promise<TestSmtpServer> {
  const tls = options.secure || options.starttls ? await selfSignedCredentials() : null;
  const state = {
    messages: [] as CapturedMail[],
    failing: false,
    rejection: null as TestSmtpServer['rejection'],
    connections: 0,
  };
  const serverOptions: SMTPServerOptions = {
    secure: options.secure ?? false,
    disabledCommands: [...(options.auth ? [] : ['AUTH']), ...(tls ? [] : ['STARTTLS'])],
    authMethods: ['PLAIN', 'LOGIN'],
    authOptional: !options.auth,
    allowInsecureAuth: true,
    ...(tls ?? {}),
    logger: false,
    onConnect: (_session, callback) => {
      state.connections += 1;
      callback();
    },
    onAuth: (auth, _session, callback) => {
      options.onAuthAttempt?.(auth.password ?? '');
      if (options.auth && auth.username === options.auth.user && auth.password === options.auth.pass)
        callback(null, { user: auth.username });
      else callback(new Error('Invalid username or password'));
    },
    onRcptTo: (_address, _session, callback) => {
      if (state.rejection) return callback(Object.assign(new Error(state.rejection.text), { responseCode: state.rejection.code }));
      callback(state.failing ? Object.assign(new Error('Try again later'), { responseCode: 451 }) : undefined);
    },
    onData: (stream, session, callback) => {
      simpleParser(stream)
        .then(async (mail) => {
          const captured = {
            to: session.envelope.rcptTo.map((r) => r.address).join(','),
            subject: mail.subject ?? '',
            html: typeof mail.html === 'string' ? mail.html : '',
            text: mail.text ?? '',
            headers: mail.headers,
          };
          state.messages.push(captured);
          if (options.acceptDelayMs) await new Promise((resolve) => setTimeout(resolve, options.acceptDelayMs));
          await options.onAccepted?.(captured);
          callback();
        })
        .catch((error: Error) => callback(error));
    },
  };
  const server = new SMTPServer(serverOptions);
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', () => resolve()));
  const address = (server as unknown as { server: { address(): AddressInfo } }).server.address();
  return {
    port: address.port,
    messages: state.messages,
    get failing() {
      return state.failing;
    },
    set failing(value: boolean) {
      state.failing = value;
    },
    get rejection() {
      return state.rejection;
    },
    set rejection(value) {
      state.rejection = value;
    },
    get connections() {
      return state.connections;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function selfSignedCredentials(): Promise<{ key: string; cert: string }> {
  const minted = await mintCertificate({ subject: 'CN=smtp.example.test', sans: ['smtp.example.test', '127.0.0.1'] });
  return { key: await privateKeyPem(minted.keys.privateKey), cert: minted.pem };
}

/** The mail settings (PUT /settings/mail) that send alerts through `smtp`: plain SMTP, no authentication. */
export function mailSettingsFor(smtp: Pick<TestSmtpServer, 'port'>): Record<string, unknown> {
  return { enabled: true, host: '127.0.0.1', port: smtp.port, tlsMode: 'none', auth: 'none', fromAddress: 'alerts@example.com' };
}
