// Reads a ClientHello back: what the probes' own hellos hold (libs/domain/src/tls/client-hello.spec.ts)
// and what a client sent to a scripted test server (`@certkeeper/net/testing`). Nothing that ships
// reads a ClientHello; the agent only writes them.
import { ByteReader, TruncatedInput } from '../src/tls/bytes';
import { CONTENT_TYPES, HANDSHAKE_TYPES, readExtensions } from '../src/tls/client-hello';
import { EXTENSION_TYPES } from '../src/tls/extensions';
import type { KeyShareEntry } from '../src/tls/key-share';

export interface ParsedClientHello {
  recordVersion: number;
  legacyVersion: number;
  random: Uint8Array;
  sessionId: Uint8Array;
  cipherSuites: number[];
  compressionMethods: number[];
  /** In the order they were sent. */
  extensions: { type: number; data: Uint8Array }[];
  serverName: string | null;
  supportedVersions: number[];
  supportedGroups: number[];
  signatureAlgorithms: number[];
  keyShares: KeyShareEntry[];
}

/**
 * Reads a ClientHello record back (our own, or a client's in a scripted server).
 * Null when the bytes are not one complete ClientHello in a single record.
 */
export function parseClientHello(bytes: Uint8Array): ParsedClientHello | null {
  try {
    const record = new ByteReader(bytes);
    if (record.uint8() !== CONTENT_TYPES.handshake) return null;
    const recordVersion = record.uint16();
    const handshake = new ByteReader(record.vector(2));
    if (handshake.uint8() !== HANDSHAKE_TYPES.clientHello) return null;
    const body = new ByteReader(handshake.vector(3));
    const legacyVersion = body.uint16();
    const random = body.take(32);
    const sessionId = body.vector(1);
    const cipherSuites = body.uint16List(2);
    const compressionMethods = Array.from(body.vector(1));
    const extensions = body.remaining > 0 ? readExtensions(new ByteReader(body.vector(2))) : [];
    return { recordVersion, legacyVersion, random, sessionId, cipherSuites, compressionMethods, extensions, ...decodeKnown(extensions) };
  } catch (error) {
    if (error instanceof TruncatedInput) return null;
    throw error;
  }
}

function decodeKnown(extensions: { type: number; data: Uint8Array }[]) {
  const find = (type: number) => extensions.find((ext) => ext.type === type)?.data;
  const serverName = find(EXTENSION_TYPES.serverName);
  const versions = find(EXTENSION_TYPES.supportedVersions);
  const groups = find(EXTENSION_TYPES.supportedGroups);
  const schemes = find(EXTENSION_TYPES.signatureAlgorithms);
  const shares = find(EXTENSION_TYPES.keyShare);
  return {
    serverName: serverName === undefined ? null : readServerName(new ByteReader(serverName)),
    supportedVersions: versions === undefined ? [] : new ByteReader(versions).uint16List(1),
    supportedGroups: groups === undefined ? [] : new ByteReader(groups).uint16List(2),
    signatureAlgorithms: schemes === undefined ? [] : new ByteReader(schemes).uint16List(2),
    keyShares: shares === undefined ? [] : readKeyShares(new ByteReader(new ByteReader(shares).vector(2))),
  };
}

function readServerName(reader: ByteReader): string | null {
  const list = new ByteReader(reader.vector(2));
  while (list.remaining > 0) {
    const type = list.uint8();
    const name = list.vector(2);
    if (type === 0) return Buffer.from(name).toString('ascii');
  }
  return null;
}

function readKeyShares(reader: ByteReader): KeyShareEntry[] {
  const shares: KeyShareEntry[] = [];
  while (reader.remaining > 0) shares.push({ group: reader.uint16(), publicKey: reader.vector(2) });
  return shares;
}
