import { randomUUID } from 'node:crypto';
import type { MintedCertificate } from '@certkeeper/domain/testing';

/** A successful host scan result as the agent posts it to /scanner/results; `overrides` replace any field. */
export function hostScanResult(endpointId: string, chain: MintedCertificate[], scannedAt: Date, overrides: Record<string, unknown> = {}) {
  return {
    resultId: randomUUID(),
    endpointId,
    type: 'host',
    scannedAt: scannedAt.toISOString(),
    success: true,
    error: null,
    resolvedIp: '192.0.2.10',
    tlsVersion: 'TLSv1.3',
    cipherSuite: 'TLS_AES_128_GCM_SHA256',
    authorized: false,
    authorizationError: 'self-signed certificate',
    chain: chain.map((c) => c.pem),
    tlsProfile: null,
    ...overrides,
  };
}
