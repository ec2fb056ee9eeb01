import { readExactly } from './byte-reader';
import { type Goodbye, StarttlsError, type Upgrader } from './starttls';

/**
 * SSLRequest (PostgreSQL frontend/backend protocol, "SSL Session Encryption"): Int32 length 8,
 * then the request code 1234 << 16 | 5679 (80877103).
 */
const SSL_REQUEST = Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f]);

/**
 * Nothing: close_notify alone. The server expects a StartupMessage first, and reads a Terminate
 * ('X') there as a startup packet of absurd length, which it logs ("invalid length of startup
 * packet"); a connection closed cleanly before the StartupMessage it logs nothing for, as
 * monitoring probes do that.
 */
export const postgresGoodbye: Goodbye = () => null;

/**
 * Asks for TLS and reads the server's single-byte answer, and not one byte more: after 'S' the
 * next bytes are TLS. Bytes a server (or a man in the middle) sent before the handshake are left
 * to the TLS layer, which rejects them, rather than read as part of the dialogue (libpq's
 * CVE-2021-23222 was to accept such bytes).
 */
export const upgradePostgres: Upgrader = async (socket, options) => {
  socket.pause();
  socket.write(SSL_REQUEST);
  const [answer] = await readExactly(socket, 1, 'answer to SSLRequest', options.readTimeoutMs);
  if (answer === 0x53) return; // 'S'
  if (answer === 0x4e) throw new StarttlsError('server refused SSL (answered N to SSLRequest)');
  // 'E' (an ErrorResponse) comes from a server that predates SSL support, the protocol documentation says.
  if (answer === 0x45) throw new StarttlsError('server answered SSLRequest with an error message, not S or N (no SSL support)');
  throw new StarttlsError(`unexpected answer to SSLRequest: byte 0x${answer.toString(16).padStart(2, '0')}, expected S or N`);
};
