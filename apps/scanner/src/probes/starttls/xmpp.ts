import { Dialogue, quote } from './dialogue';
import { type Goodbye, StarttlsError, type Upgrader } from './starttls';

/** The stream header and features a server may send before STARTTLS: generous, bounded. */
export const MAX_FEATURES_BYTES = 64 * 1024;
const MAX_PROCEED_BYTES = 4 * 1024;

const TLS_NS = 'urn:ietf:params:xml:ns:xmpp-tls';
// Element names may carry any prefix the server declared (`stream:` by convention, RFC 6120 4.8.5).
const PREFIX = String.raw`(?:[A-Za-z_][\w.-]*:)?`;
const FEATURES_END = new RegExp(String.raw`<${PREFIX}features\b[^>]*\/>|<\/${PREFIX}features\s*>`);
const STREAM_ERROR = new RegExp(String.raw`<${PREFIX}error\b[^>]*>([\s\S]*?)<\/${PREFIX}error\s*>`);
const STREAM_END = new RegExp(String.raw`<\/${PREFIX}stream\s*>`);
const STARTTLS_OFFER = new RegExp(String.raw`<starttls\b[^>]*\bxmlns\s*=\s*(['"])${TLS_NS}\1`);
const PROCEED = /<proceed\b[^>]*\/>|<proceed\b[^>]*>\s*<\/proceed\s*>/;
const FAILURE = /<failure\b[^>]*\/>|<\/failure\s*>/;

const xmlAttribute = (value: string) => value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/'/g, '&apos;').replace(/"/g, '&quot;');

/** The earliest end among the patterns found: the byte offset where the step's XML stops. */
function endOfFirst(text: string, patterns: RegExp[]): number | null {
  let end: number | null = null;
  for (const pattern of patterns) {
    const match = pattern.exec(text);
    if (match && (end === null || match.index + match[0].length < end)) end = match.index + match[0].length;
  }
  return end;
}

function throwIfStreamEnded(xml: string, what: string): void {
  const error = STREAM_ERROR.exec(xml);
  if (error) {
    const condition = /<([\w-]+)\b[^>]*xmlns\s*=\s*['"]urn:ietf:params:xml:ns:xmpp-streams['"]/.exec(error[1])?.[1];
    throw new StarttlsError(`stream error in ${what}: ${quote(condition ?? error[1])}`);
  }
  if (STREAM_END.test(xml)) throw new StarttlsError(`server closed the stream in ${what}`);
}

const streamHeader = (serverName: string) =>
  `<?xml version='1.0'?><stream:stream to='${xmlAttribute(serverName)}' xmlns='jabber:client' ` +
  `xmlns:stream='http://etherx.jabber.org/streams' version='1.0'>`;

/**
 * RFC 6120 5.4.3.3 and 4.4: after TLS the client opens a new stream, and it ends a stream by
 * closing it; a bare `</stream:stream>` would close a stream never opened inside the TLS session,
 * which a server reads as not-well-formed XML.
 */
export const xmppGoodbye: Goodbye = (serverName) => `${streamHeader(serverName)}</stream:stream>`;

/**
 * XMPP STARTTLS (RFC 6120 5.4): open the client stream to serverName, read the stream features
 * until they offer <starttls xmlns='urn:ietf:params:xml:ns:xmpp-tls'/>, send <starttls/>, expect
 * <proceed/> (<failure/> is a refusal), then the ClientHello. The XML is matched, not parsed: a
 * pre-TLS stream carries a header and one features element, and the read stops at its end.
 */
export const upgradeXmpp: Upgrader = async (socket, options) => {
  const dialogue = new Dialogue(socket, options);
  dialogue.write(streamHeader(options.serverName));
  const features = await dialogue.readUntil('stream features', MAX_FEATURES_BYTES, (text) =>
    endOfFirst(text, [FEATURES_END, STREAM_ERROR, STREAM_END]),
  );
  throwIfStreamEnded(features, 'stream features');
  if (!STARTTLS_OFFER.test(features)) throw new StarttlsError('server did not offer STARTTLS');

  dialogue.write(`<starttls xmlns='${TLS_NS}'/>`);
  const reply = await dialogue.readUntil('reply to starttls', MAX_PROCEED_BYTES, (text) =>
    endOfFirst(text, [PROCEED, FAILURE, STREAM_ERROR, STREAM_END]),
  );
  throwIfStreamEnded(reply, 'reply to starttls');
  if (FAILURE.test(reply) && !PROCEED.test(reply)) throw new StarttlsError(`upgrade refused: ${quote(reply)}`);
  dialogue.release();
};
