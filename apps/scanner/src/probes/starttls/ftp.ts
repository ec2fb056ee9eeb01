import { Dialogue, describeReply, readCodedReply } from './dialogue';
import { type Goodbye, StarttlsError, type Upgrader } from './starttls';

/** RFC 959 4.1.1: the server answers 221 and closes the control connection. */
export const ftpGoodbye: Goodbye = () => 'QUIT\r\n';

/**
 * FTP AUTH TLS (RFC 4217 4): 220 greeting (often multi-line), AUTH TLS, 234, then the ClientHello.
 * No FEAT first: servers that do not speak TLS say so to AUTH itself (500, 502, 504), and that
 * saves a round trip on every scan.
 */
export const upgradeFtp: Upgrader = async (socket, options) => {
  const dialogue = new Dialogue(socket, options);
  // 120 means "ready in n minutes": the server is not ready for AUTH, which is a refusal here.
  const greeting = await readCodedReply(dialogue, 'greeting', options.readTimeoutMs);
  if (greeting.code !== 220) throw new StarttlsError(`greeting refused: ${describeReply(greeting)}`);

  dialogue.write('AUTH TLS\r\n');
  const reply = await readCodedReply(dialogue, 'reply to AUTH TLS', options.readTimeoutMs);
  // RFC 4217 4.1: 500/502 (AUTH unknown) and 504 (TLS not a supported mechanism).
  if (reply.code === 500 || reply.code === 502 || reply.code === 504) {
    throw new StarttlsError(`server did not offer STARTTLS: AUTH TLS answered ${describeReply(reply)}`);
  }
  if (reply.code !== 234) throw new StarttlsError(`upgrade refused: ${describeReply(reply)}`);
  dialogue.release();
};
