import { Dialogue, MAX_REPLY_LINES, quote } from './dialogue';
import { type Goodbye, StarttlsError, type Upgrader } from './starttls';

const offersStarttls = (capabilities: string) => /(^|\s)STARTTLS(\s|$)/i.test(capabilities);

/** RFC 9051 6.1.3: `* BYE`, the tagged OK, and the server closes. The tag follows a0 and a1 of the upgrade. */
export const imapGoodbye: Goodbye = () => 'a2 LOGOUT\r\n';

/**
 * IMAP STARTTLS (RFC 3501 6.2.1, RFC 9051): `* OK` greeting, the capabilities (from the
 * greeting's [CAPABILITY ...] code when it has one, otherwise `a0 CAPABILITY`), `a1 STARTTLS`,
 * `a1 OK`, then the ClientHello.
 */
export const upgradeImap: Upgrader = async (socket, options) => {
  const dialogue = new Dialogue(socket, options);
  const greeting = await dialogue.readLine('greeting');
  // PREAUTH: already authenticated, where STARTTLS is not allowed; BYE: the server turns us away.
  if (/^\* PREAUTH\b/i.test(greeting)) throw new StarttlsError(`server did not offer STARTTLS: ${quote(greeting)}`);
  if (!/^\* OK\b/i.test(greeting)) throw new StarttlsError(`greeting refused: ${quote(greeting)}`);

  const inGreeting = /\[CAPABILITY ([^\]]*)\]/i.exec(greeting);
  const capabilities = inGreeting ? inGreeting[1] : await askCapabilities(dialogue, options.readTimeoutMs);
  if (!offersStarttls(capabilities)) throw new StarttlsError('server did not offer STARTTLS');

  dialogue.write('a1 STARTTLS\r\n');
  const reply = await readTagged(dialogue, 'a1', 'reply to STARTTLS', options.readTimeoutMs);
  if (!/^a1 OK\b/i.test(reply.tagged)) throw new StarttlsError(`upgrade refused: ${quote(reply.tagged.slice(3))}`);
  dialogue.release();
};

async function askCapabilities(dialogue: Dialogue, readTimeoutMs: number): Promise<string> {
  dialogue.write('a0 CAPABILITY\r\n');
  const reply = await readTagged(dialogue, 'a0', 'reply to CAPABILITY', readTimeoutMs);
  if (!/^a0 OK\b/i.test(reply.tagged)) throw new StarttlsError(`CAPABILITY refused: ${quote(reply.tagged.slice(3))}`);
  return reply.untagged
    .map((line) => /^\* CAPABILITY (.*)$/i.exec(line)?.[1])
    .filter((found): found is string => found !== undefined)
    .join(' ');
}

/** Untagged lines up to the line tagged `tag`, within one deadline. */
async function readTagged(dialogue: Dialogue, tag: string, what: string, readTimeoutMs: number) {
  const deadline = Date.now() + readTimeoutMs;
  const untagged: string[] = [];
  for (;;) {
    const line = await dialogue.readLine(what, deadline);
    if (line.toLowerCase().startsWith(`${tag} `)) return { untagged, tagged: line };
    if (/^\* BYE\b/i.test(line)) throw new StarttlsError(`server closed the session: ${quote(line)}`);
    if (untagged.length >= MAX_REPLY_LINES) throw new StarttlsError(`${what}: more than ${MAX_REPLY_LINES} lines`);
    untagged.push(line);
  }
}
