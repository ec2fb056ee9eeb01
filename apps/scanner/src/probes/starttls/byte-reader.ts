import type { Socket } from 'node:net';
import { formatDeadline } from './dialogue';
import { StarttlsError } from './starttls';

/**
 * Reads exactly `length` bytes of a binary dialogue (PostgreSQL, LDAP) within `timeoutMs`. The
 * socket is read in paused mode with socket.read(length), which hands back `length` bytes or
 * nothing: whatever the server sent beyond them stays in the stream's buffer, where
 * tls.connect({ socket }) reads it first. `what` names the step for errors ("answer to SSLRequest").
 */
export function readExactly(socket: Socket, length: number, what: string, timeoutMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      clearTimeout(timer);
      socket.off('readable', attempt);
      socket.off('end', onClosed);
      socket.off('close', onClosed);
      socket.off('error', onError);
    };
    const fail = (message: string) => {
      cleanup();
      reject(new StarttlsError(message));
    };
    const onClosed = () => fail(`server closed the connection before the ${what}`);
    const onError = (error: Error) => fail(`connection failed awaiting the ${what}: ${error.message}`);
    function attempt() {
      const chunk = socket.read(length) as Buffer | null;
      if (chunk === null) {
        if (socket.readableEnded || socket.destroyed) onClosed();
        return;
      }
      // After the server's FIN, read(n) returns the short remainder rather than nothing.
      if (chunk.length < length) return onClosed();
      cleanup();
      resolve(chunk);
    }
    const timer = setTimeout(() => fail(`no ${what} within ${formatDeadline(timeoutMs)}`), timeoutMs);
    socket.on('readable', attempt);
    socket.on('end', onClosed);
    socket.on('close', onClosed);
    socket.on('error', onError);
    attempt();
  });
}
