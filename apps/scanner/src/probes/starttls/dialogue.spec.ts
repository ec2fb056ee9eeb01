import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';
import { Dialogue, readCodedReply } from './dialogue';
import { upgradeImap } from './imap';
import { upgradePop3 } from './pop3';
import { upgradeSmtp } from './smtp';
import type { Upgrader } from './starttls';
import { upgradeXmpp } from './xmpp';

// Raw scripted servers on loopback: the dialogue reader's own guarantees, and the replies the
// protocol test servers do not send (odd greetings, bytes dripped one at a time).
const servers: Server[] = [];
afterAll(() => Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve)))));

async function scripted(script: (socket: Socket) => void): Promise<number> {
  const server = createServer((socket) => {
    socket.on('error', () => undefined);
    server.once('close', () => socket.destroy());
    script(socket);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function connected(port: number): Promise<Socket> {
  const socket = connect({ host: '127.0.0.1', port });
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  return socket;
}

async function attempt(port: number, upgrade: Upgrader, readTimeoutMs = 1000): Promise<Error | null> {
  const socket = await connected(port);
  try {
    await upgrade(socket, { serverName: 'example.test', readTimeoutMs });
    return null;
  } catch (error) {
    return error as Error;
  } finally {
    socket.destroy();
  }
}

describe('Dialogue', () => {
  it('hands bytes read beyond the line back to the socket, which stays paused', async () => {
    const port = await scripted((socket) => socket.write('first line\r\nTLS BYTES'));
    const socket = await connected(port);
    const dialogue = new Dialogue(socket, { serverName: 'example.test', readTimeoutMs: 1000 });
    // Both parts arrive in one segment, so the reader holds "TLS BYTES" after the line.
    await new Promise((resolve) => setTimeout(resolve, 100));
    await expect(dialogue.readLine('greeting')).resolves.toBe('first line');
    dialogue.release();
    expect(socket.isPaused()).toBe(true);
    expect(String(socket.read())).toBe('TLS BYTES');
    socket.destroy();
  });

  it('holds a server that drips a line byte by byte to one read deadline for the line', async () => {
    const port = await scripted((socket) => {
      const timer = setInterval(() => socket.write('2'), 50);
      socket.on('close', () => clearInterval(timer));
    });
    const began = Date.now();
    const error = await attempt(port, upgradeSmtp, 300);
    expect(error?.message).toBe('no greeting within 300 ms');
    expect(Date.now() - began).toBeLessThan(1000);
  });

  it('says the server closed the connection when it resets it rather than closing it cleanly', async () => {
    // A server closing with the client's command unread sends a reset: the client sees ECONNRESET.
    const port = await scripted((socket) => {
      socket.write('+OK POP3 ready\r\n');
      socket.once('data', () => socket.resetAndDestroy());
    });
    expect((await attempt(port, upgradePop3))?.message).toBe('server closed the connection before the reply to CAPA');
  });

  it('caps the lines of one reply', async () => {
    const port = await scripted((socket) => socket.write('220-hello\r\n'.repeat(200)));
    const socket = await connected(port);
    const dialogue = new Dialogue(socket, { serverName: 'example.test', readTimeoutMs: 1000 });
    await expect(readCodedReply(dialogue, 'greeting', 1000)).rejects.toThrow('greeting: more than 100 lines');
    socket.destroy();
  });
});

describe('upgradeSmtp on unusual replies', () => {
  it('quotes a refusing greeting', async () => {
    const port = await scripted((socket) => socket.end('554 5.3.2 no service for you\r\n'));
    expect((await attempt(port, upgradeSmtp))?.message).toBe('greeting refused: 554 5.3.2 no service for you');
  });

  it('names a reply that is not SMTP', async () => {
    const port = await scripted((socket) => socket.write('SSH-2.0-OpenSSH_9.6\r\n'));
    expect((await attempt(port, upgradeSmtp))?.message).toBe('malformed greeting: SSH-2.0-OpenSSH_9.6');
  });

  it('quotes a refused EHLO', async () => {
    const port = await scripted((socket) => {
      socket.write('220 mx ESMTP\r\n');
      socket.once('data', () => socket.write('502 5.5.1 EHLO not supported\r\n'));
    });
    expect((await attempt(port, upgradeSmtp))?.message).toBe('EHLO refused: 502 5.5.1 EHLO not supported');
  });

  it('does not take STARTTLS in the server name line for the keyword', async () => {
    const port = await scripted((socket) => {
      socket.write('220 starttls ESMTP\r\n');
      socket.once('data', () => socket.write('250-STARTTLS.example\r\n250 SIZE 1000\r\n'));
    });
    expect((await attempt(port, upgradeSmtp))?.message).toBe('server did not offer STARTTLS');
  });
});

describe('upgradeImap on unusual greetings', () => {
  it('takes the capabilities from the greeting without asking CAPABILITY', async () => {
    const received: string[] = [];
    const port = await scripted((socket) => {
      socket.write('* OK [CAPABILITY IMAP4rev1 STARTTLS LOGINDISABLED] ready\r\n');
      socket.on('data', (chunk: Buffer) => {
        received.push(chunk.toString());
        socket.write('a1 OK Begin TLS negotiation now\r\n');
      });
    });
    expect(await attempt(port, upgradeImap)).toBeNull();
    expect(received).toEqual(['a1 STARTTLS\r\n']);
  });

  it('says so on a PREAUTH greeting, where STARTTLS is not allowed', async () => {
    const port = await scripted((socket) => socket.write('* PREAUTH logged in as admin\r\n'));
    expect((await attempt(port, upgradeImap))?.message).toBe('server did not offer STARTTLS: * PREAUTH logged in as admin');
  });

  it('quotes a BYE greeting', async () => {
    const port = await scripted((socket) => socket.end('* BYE too many connections\r\n'));
    expect((await attempt(port, upgradeImap))?.message).toBe('greeting refused: * BYE too many connections');
  });
});

describe('upgradePop3 on a server without CAPA', () => {
  it('asks STLS anyway after CAPA is answered -ERR', async () => {
    const received: string[] = [];
    const port = await scripted((socket) => {
      socket.write('+OK old POP3 server\r\n');
      socket.on('data', (chunk: Buffer) => {
        received.push(chunk.toString());
        socket.write(received.length === 1 ? '-ERR unknown command\r\n' : '+OK go ahead\r\n');
      });
    });
    expect(await attempt(port, upgradePop3)).toBeNull();
    expect(received).toEqual(['CAPA\r\n', 'STLS\r\n']);
  });
});

describe("upgradeXmpp on other servers' XML", () => {
  const header = `<?xml version="1.0"?><stream:stream xmlns="jabber:client" xmlns:stream="http://etherx.jabber.org/streams" version="1.0">`;

  it('reads double quotes and features split across segments, and stops at <proceed>', async () => {
    const port = await scripted((socket) => {
      socket.once('data', () => {
        socket.write(`${header}<stream:features><starttls xmlns="urn:ietf:params:xml:ns:xmpp-tls">`);
        setTimeout(() => socket.write('<required/></starttls></stream:features>'), 50);
        socket.once('data', () => socket.write('<proceed xmlns="urn:ietf:params:xml:ns:xmpp-tls"></proceed>'));
      });
    });
    expect(await attempt(port, upgradeXmpp)).toBeNull();
  });

  it('names the condition of a stream error', async () => {
    const port = await scripted((socket) => {
      socket.once('data', () =>
        socket.end(`${header}<stream:error><host-unknown xmlns='urn:ietf:params:xml:ns:xmpp-streams'/></stream:error></stream:stream>`),
      );
    });
    expect((await attempt(port, upgradeXmpp))?.message).toBe('stream error in stream features: host-unknown');
  });
});
