import { execFile, spawnSync } from 'node:child_process';
import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls, type PeerCertificate } from 'node:tls';
import type { Upgrader } from '../../../src/probes/starttls/starttls';

/** A connected socket to 127.0.0.1:port. */
export function connectPlain(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connectTcp({ host: '127.0.0.1', port }, () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/**
 * Connects, runs the upgrade, then completes a TLS handshake over the same socket and returns the
 * peer's leaf: what the probe does after an upgrade.
 */
export async function upgradeThenHandshake(port: number, upgrade: Upgrader, readTimeoutMs = 5000): Promise<PeerCertificate> {
  const socket = await connectPlain(port);
  try {
    await upgrade(socket, { serverName: 'leaf.example.com', readTimeoutMs });
    return await new Promise<PeerCertificate>((resolve, reject) => {
      const secure = connectTls({ socket, servername: 'leaf.example.com', rejectUnauthorized: false }, () => {
        resolve(secure.getPeerCertificate());
        secure.destroy();
      });
      secure.once('error', reject);
    });
  } finally {
    socket.destroy();
  }
}

/**
 * Connects and runs the upgrade, then returns the first `length` bytes the socket still holds
 * (latin1): what the server sent after its answer must be left for the TLS layer. The upgrade
 * must also leave the socket paused, so nothing is read until the TLS layer takes over.
 */
export async function bytesLeftAfterUpgrade(port: number, upgrade: Upgrader, length: number): Promise<{ paused: boolean; rest: string }> {
  const socket = await connectPlain(port);
  try {
    await upgrade(socket, { serverName: 'leaf.example.com', readTimeoutMs: 5000 });
    const paused = socket.isPaused();
    const rest = await new Promise<string>((resolve, reject) => {
      let text = '';
      const timer = setTimeout(() => reject(new Error(`only ${JSON.stringify(text)} left after the upgrade`)), 3000);
      socket.resume();
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString('latin1');
        if (text.length >= length) {
          clearTimeout(timer);
          resolve(text);
        }
      });
    });
    return { paused, rest };
  } finally {
    socket.destroy();
  }
}

/** CI installs openssl (.ci/run): there a missing one fails; elsewhere the tests skip, saying so. */
export const OPENSSL_AVAILABLE = spawnSync('openssl', ['version'], { stdio: 'ignore' }).error === undefined;

/** The first certificate `openssl s_client -starttls <protocol> -showcerts` prints, as DER. */
export function opensslStarttlsLeaf(port: number, protocol: 'postgres' | 'ldap'): Promise<Buffer> {
  const args = ['s_client', '-connect', `127.0.0.1:${port}`, '-starttls', protocol, '-servername', 'leaf.example.com', '-showcerts'];
  return new Promise((resolve, reject) => {
    // stdin is /dev/null (execFile's default would be a pipe left open): s_client quits after the handshake.
    const child = execFile('openssl', args, { timeout: 20_000, encoding: 'utf8' }, (error, stdout, stderr) => {
      const pem = /-----BEGIN CERTIFICATE-----\s+([A-Za-z0-9+/=\s]+?)-----END CERTIFICATE-----/.exec(stdout);
      if (pem) return resolve(Buffer.from(pem[1].replace(/\s+/g, ''), 'base64'));
      reject(new Error(`openssl s_client printed no certificate (${error?.message ?? 'exit 0'}): ${stderr}`));
    });
    child.stdin?.end();
  });
}
