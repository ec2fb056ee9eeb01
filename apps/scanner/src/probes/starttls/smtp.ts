import { Dialogue, describeReply, readCodedReply } from './dialogue';
import { type Goodbye, StarttlsError, type Upgrader } from './starttls';

/**
 * SMTP STARTTLS (RFC 3207): 220 greeting, EHLO, STARTTLS among the EHLO keywords, STARTTLS,
 * 220, then the ClientHello.
 */
/** RFC 5321 4.1.1.10: the server answers 221 and closes. */
export const smtpGoodbye: Goodbye = () => 'QUIT\r\n';

export const upgradeSmtp: Upgrader = async (socket, options) => {
  const dialogue = new Dialogue(socket, options);
  const greeting = await readCodedReply(dialogue, 'greeting', options.readTimeoutMs);
  if (greeting.code !== 220) throw new StarttlsError(`greeting refused: ${describeReply(greeting)}`);

  dialogue.write(`EHLO ${options.serverName}\r\n`);
  const ehlo = await readCodedReply(dialogue, 'reply to EHLO', options.readTimeoutMs);
  if (ehlo.code !== 250) throw new StarttlsError(`EHLO refused: ${describeReply(ehlo)}`);
  // The first line is the server's name; each later line is a keyword and its parameters.
  if (!ehlo.lines.slice(1).some((line) => /^STARTTLS(\s|$)/i.test(line.trim()))) {
    throw new StarttlsError('server did not offer STARTTLS');
  }

  dialogue.write('STARTTLS\r\n');
  const reply = await readCodedReply(dialogue, 'reply to STARTTLS', options.readTimeoutMs);
  if (reply.code !== 220) throw new StarttlsError(`upgrade refused: ${describeReply(reply)}`);
  dialogue.release();
};
