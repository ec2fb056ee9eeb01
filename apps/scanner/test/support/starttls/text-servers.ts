// Small protocol-faithful STARTTLS servers on loopback for the upgraders' tests: each speaks its
// protocol's plain dialogue as the RFC has it (SMTP RFC 3207, IMAP RFC 3501, POP3 RFC 2595 and
// 2449, FTP RFC 4217, XMPP RFC 6120), answers openssl s_client -starttls as well as our upgraders,
// then hands the connection to a TLS server socket with a minted certificate.
import { X509Certificate } from 'node:crypto';
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { connect as tlsConnect, TLSSocket } from 'node:tls';
import type { Upgrader } from '../../../src/probes/starttls/starttls';

export type TextProtocol = 'smtp' | 'imap' | 'pop3' | 'ftp' | 'xmpp';

/** The server's certificate and key, PEM. Specs mint them (@certkeeper/domain/testing is for specs only). */
export interface ServerCredentials {
  certPem: string;
  keyPem: string;
}

export interface TextServerOptions {
  protocol: TextProtocol;
  credentials: ServerCredentials;
  /** The name in the greeting. */
  serverName?: string;
  /** false: capabilities (EHLO, CAPABILITY, CAPA, stream features) without STARTTLS; FTP answers AUTH with 502. */
  offerStarttls?: boolean;
  /** The answer to the upgrade command instead of its OK ("454 TLS not available ..."; XMPP sends <failure/>). */
  refuse?: string;
  /** Goes silent: before the greeting, after it (the first command is never answered), or at the upgrade command. */
  stall?: 'greeting' | 'afterGreeting' | 'upgrade';
  /** A greeting line (XMPP: stream features) longer than any cap, with no end. */
  overlongGreeting?: boolean;
}

export interface TextServer {
  port: number;
  certificatePem: string;
  /** SHA-256 fingerprint as node:crypto writes it (AA:BB:...). */
  fingerprint256: string;
  /** Connections that reached the TLS handshake's end. */
  readonly handshakes: number;
  /** TLS sessions in which the client said its protocol's goodbye (QUIT, LOGOUT, a closed stream); answered, then closed. */
  readonly goodbyes: number;
  /** TLS sessions the client ended with close_notify (the session's 'end'), not a reset. */
  readonly cleanCloses: number;
  /** TLS sessions that ended in an error (ECONNRESET) after their handshake: what a server logs as a broken session. */
  readonly brokenSessions: number;
  close(): Promise<void>;
}

type Reply = string | { reply: string; upgrade: true } | null;

export async function startTextServer(options: TextServerOptions): Promise<TextServer> {
  const name = options.serverName ?? `${options.protocol}.example.test`;
  const { keyPem: key, certPem: cert } = options.credentials;
  const sockets = new Set<Socket>();
  let handshakes = 0;
  let goodbyes = 0;
  let cleanCloses = 0;
  let brokenSessions = 0;

  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    const upgrade = () => {
      // Stop reading plain text before the ClientHello arrives: the TLS socket reads from here on.
      socket.removeAllListeners('data');
      socket.pause();
      const secure = new TLSSocket(socket, { isServer: true, key, cert });
      let established = false;
      secure.on('secure', () => {
        handshakes += 1;
        established = true;
      });
      secure.on('error', () => {
        if (established) brokenSessions += 1;
        socket.destroy();
      });
      secure.on('end', () => {
        if (established) cleanCloses += 1;
      });
      // Inside the session the server answers only the goodbye, and then closes, as real servers do.
      let said = '';
      secure.on('data', (chunk: Buffer) => {
        said += chunk.toString('latin1');
        const answer = goodbyeAnswer(options.protocol, said, name);
        if (answer === null) return;
        goodbyes += 1;
        said = '';
        secure.end(answer);
      });
    };
    const session = options.protocol === 'xmpp' ? xmppSession(name, options) : lineSession(name, options);
    if (options.stall !== 'greeting') socket.write(session.greeting);
    if (options.overlongGreeting && options.protocol !== 'xmpp') return;
    let buffered = '';
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('latin1');
      for (;;) {
        const taken = session.take(buffered);
        if (!taken) return;
        buffered = buffered.slice(taken.length);
        const reply = taken.reply;
        if (reply === null) continue;
        if (typeof reply === 'string') {
          socket.write(reply);
          continue;
        }
        socket.write(reply.reply);
        upgrade();
        return;
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    certificatePem: cert,
    fingerprint256: new X509Certificate(cert).fingerprint256,
    get handshakes() {
      return handshakes;
    },
    get goodbyes() {
      return goodbyes;
    },
    get cleanCloses() {
      return cleanCloses;
    },
    get brokenSessions() {
      return brokenSessions;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The answer to the protocol's goodbye once `said` (inside TLS) holds it; null until then. */
function goodbyeAnswer(protocol: TextProtocol, said: string, name: string): string | null {
  if (protocol === 'xmpp') {
    return /<\/stream:stream>/.test(said) ? `<?xml version='1.0'?><stream:stream from='${name}' version='1.0'></stream:stream>` : null;
  }
  for (const line of said.split('\r\n')) {
    const answer = /^(\S+ )?(QUIT|LOGOUT)$/i.test(line) ? SCRIPTS[protocol].answer(line, name, true) : null;
    if (answer) return answer.reply;
  }
  return null;
}

interface Session {
  greeting: string;
  /** The next complete request in `buffered` and the answer to it, or null until more arrives. */
  take(buffered: string): { length: number; reply: Reply } | null;
}

const OVERLONG = 'x'.repeat(70 * 1024);

function lineSession(name: string, options: TextServerOptions): Session {
  const offer = options.offerStarttls !== false;
  const script = SCRIPTS[options.protocol as Exclude<TextProtocol, 'xmpp'>];
  const greeting = options.overlongGreeting ? `${script.greetingPrefix}${OVERLONG}` : script.greeting(name);
  return {
    greeting,
    take(buffered) {
      const end = buffered.indexOf('\n');
      if (end < 0) return null;
      const line = buffered.slice(0, end).replace(/\r$/, '');
      if (options.stall === 'afterGreeting') return { length: end + 1, reply: null };
      const answer = script.answer(line, name, offer);
      if (answer === null) return { length: end + 1, reply: null };
      if (answer.upgrade) {
        if (options.stall === 'upgrade') return { length: end + 1, reply: null };
        if (options.refuse !== undefined) return { length: end + 1, reply: `${answer.tag}${options.refuse}\r\n` };
        return { length: end + 1, reply: { reply: answer.reply, upgrade: true } };
      }
      return { length: end + 1, reply: answer.reply };
    },
  };
}

interface Script {
  greeting(name: string): string;
  greetingPrefix: string;
  answer(line: string, name: string, offer: boolean): { reply: string; upgrade?: boolean; tag?: string } | null;
}

const SCRIPTS: Record<Exclude<TextProtocol, 'xmpp'>, Script> = {
  smtp: {
    greeting: (name) => `220 ${name} ESMTP test server\r\n`,
    greetingPrefix: '220 ',
    answer(line, name, offer) {
      const verb = line.split(' ')[0].toUpperCase();
      if (verb === 'EHLO')
        return { reply: `250-${name} greets you\r\n250-PIPELINING\r\n${offer ? '250-STARTTLS\r\n' : ''}250 8BITMIME\r\n` };
      if (verb === 'STARTTLS' && offer) return { reply: '220 2.0.0 Ready to start TLS\r\n', upgrade: true, tag: '' };
      if (verb === 'QUIT') return { reply: '221 2.0.0 Bye\r\n' };
      return { reply: '502 5.5.2 Command not recognized\r\n' };
    },
  },
  imap: {
    greeting: () => '* OK IMAP4rev1 test server ready\r\n',
    greetingPrefix: '* OK ',
    answer(line, _name, offer) {
      const [tag, command = ''] = line.split(' ');
      const verb = command.toUpperCase();
      if (verb === 'CAPABILITY') {
        return { reply: `* CAPABILITY IMAP4rev1 ${offer ? 'STARTTLS ' : ''}LOGINDISABLED\r\n${tag} OK CAPABILITY completed\r\n` };
      }
      if (verb === 'STARTTLS' && offer) return { reply: `${tag} OK Begin TLS negotiation now\r\n`, upgrade: true, tag: `${tag} ` };
      if (verb === 'LOGOUT') return { reply: `* BYE logging out\r\n${tag} OK LOGOUT completed\r\n` };
      return { reply: `${tag} BAD command unknown or arguments invalid\r\n` };
    },
  },
  pop3: {
    greeting: () => '+OK POP3 test server ready\r\n',
    greetingPrefix: '+OK ',
    answer(line, _name, offer) {
      const verb = line.split(' ')[0].toUpperCase();
      if (verb === 'CAPA') return { reply: `+OK Capability list follows\r\nUSER\r\nUIDL\r\n${offer ? 'STLS\r\n' : ''}.\r\n` };
      if (verb === 'STLS' && offer) return { reply: '+OK Begin TLS negotiation\r\n', upgrade: true, tag: '' };
      if (verb === 'QUIT') return { reply: '+OK bye\r\n' };
      return { reply: '-ERR unknown command\r\n' };
    },
  },
  ftp: {
    // Multi-line on purpose (RFC 959 4.2): the continuation lines carry the code or not.
    greeting: (name) => `220-${name} FTP test server\r\n  no code on this line\r\n220 ready\r\n`,
    greetingPrefix: '220 ',
    answer(line, _name, offer) {
      const upper = line.toUpperCase();
      if (upper === 'AUTH TLS' || upper === 'AUTH SSL') {
        return offer ? { reply: '234 AUTH TLS successful\r\n', upgrade: true, tag: '' } : { reply: '502 Command not implemented\r\n' };
      }
      if (upper === 'FEAT') return { reply: `211-Features:\r\n${offer ? ' AUTH TLS\r\n' : ''} UTF8\r\n211 End\r\n` };
      if (upper === 'QUIT') return { reply: '221 Goodbye\r\n' };
      return { reply: '530 Please login with USER and PASS\r\n' };
    },
  },
};

function xmppSession(name: string, options: TextServerOptions): Session {
  const offer = options.offerStarttls !== false;
  const tls = "xmlns='urn:ietf:params:xml:ns:xmpp-tls'";
  const header =
    `<?xml version='1.0'?><stream:stream from='${name}' id='c2s-1' version='1.0' xml:lang='en' ` +
    `xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams'>`;
  const features = options.overlongGreeting
    ? `<stream:features><mechanisms xmlns='urn:ietf:params:xml:ns:xmpp-sasl'>${'<mechanism>X</mechanism>'.repeat(4000)}`
    : `<stream:features>${offer ? `<starttls ${tls}><required/></starttls>` : ''}` +
      `<mechanisms xmlns='urn:ietf:params:xml:ns:xmpp-sasl'><mechanism>PLAIN</mechanism></mechanisms></stream:features>`;
  return {
    // XMPP's server speaks second: its "greeting" answers the client's stream header.
    greeting: '',
    take(buffered) {
      const open = /<stream:stream\b[^>]*>/.exec(buffered);
      if (open) {
        const length = open.index + open[0].length;
        if (options.stall === 'greeting') return { length, reply: null };
        // "afterGreeting": the stream header is the greeting; the features never follow.
        return { length, reply: options.stall === 'afterGreeting' ? header : header + features };
      }
      const starttls = /<starttls\b[^>]*\/>/.exec(buffered);
      if (starttls) {
        const length = starttls.index + starttls[0].length;
        if (options.stall === 'upgrade') return { length, reply: null };
        if (options.refuse !== undefined) return { length, reply: `<failure ${tls}/></stream:stream>` };
        return { length, reply: { reply: `<proceed ${tls}/>`, upgrade: true } };
      }
      return null;
    },
  };
}

/**
 * What a probe does: connect, run the upgrader, then a TLS handshake over the same socket. Returns
 * the peer certificate's SHA-256 fingerprint: equal to the server's only if the upgrader left the
 * socket exactly at the server's first TLS byte.
 */
export async function upgradeAndHandshake(
  port: number,
  upgrader: Upgrader,
  options: { serverName: string; readTimeoutMs?: number },
): Promise<string> {
  const socket = connect({ host: '127.0.0.1', port });
  try {
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    await upgrader(socket, { serverName: options.serverName, readTimeoutMs: options.readTimeoutMs ?? 5000 });
    const secure = tlsConnect({ socket, servername: options.serverName, rejectUnauthorized: false });
    await new Promise<void>((resolve, reject) => secure.once('secureConnect', resolve).once('error', reject));
    const fingerprint = secure.getPeerCertificate().fingerprint256;
    // A clean close (close_notify both ways) lets the server finish its side of the handshake first.
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 2000);
      secure.once('close', () => (clearTimeout(timer), resolve())).end();
    });
    secure.destroy();
    return fingerprint;
  } finally {
    socket.destroy();
  }
}
