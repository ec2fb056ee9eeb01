import { Dialogue, MAX_REPLY_LINES, quote } from './dialogue';
import { type Goodbye, StarttlsError, type Upgrader } from './starttls';

/** RFC 1939 6: QUIT in the AUTHORIZATION state; the server answers +OK and closes. */
export const pop3Goodbye: Goodbye = () => 'QUIT\r\n';

/**
 * POP3 STLS (RFC 2595 4): +OK greeting, CAPA (RFC 2449) listing STLS, STLS, +OK, then the
 * ClientHello. A server without CAPA (-ERR) is asked STLS anyway: CAPA postdates many servers.
 */
export const upgradePop3: Upgrader = async (socket, options) => {
  const dialogue = new Dialogue(socket, options);
  const greeting = await dialogue.readLine('greeting');
  if (!greeting.startsWith('+OK')) throw new StarttlsError(`greeting refused: ${quote(greeting)}`);

  dialogue.write('CAPA\r\n');
  const capa = await dialogue.readLine('reply to CAPA');
  if (capa.startsWith('+OK')) {
    const deadline = Date.now() + options.readTimeoutMs;
    const capabilities: string[] = [];
    for (;;) {
      const line = await dialogue.readLine('reply to CAPA', deadline);
      if (line === '.') break;
      if (capabilities.length >= MAX_REPLY_LINES) throw new StarttlsError(`reply to CAPA: more than ${MAX_REPLY_LINES} lines`);
      capabilities.push(line);
    }
    if (!capabilities.some((line) => /^STLS(\s|$)/i.test(line.trim()))) throw new StarttlsError('server did not offer STARTTLS');
  } else if (!capa.startsWith('-ERR')) {
    throw new StarttlsError(`malformed reply to CAPA: ${quote(capa)}`);
  }

  dialogue.write('STLS\r\n');
  const reply = await dialogue.readLine('reply to STLS');
  if (!reply.startsWith('+OK')) throw new StarttlsError(`upgrade refused: ${quote(reply)}`);
  dialogue.release();
};
