export type FingerprintAlgorithm = 'sha256' | 'sha1';

export interface Fingerprint {
  algorithm: FingerprintAlgorithm;
  /** Lower-case hexadecimal without separators. */
  hex: string;
}

/**
 * Reads a fingerprint the way people paste them: upper or lower case, with or without colons
 * or spaces. SHA-256 (64 hex digits) or SHA-1 (40). Anything else is null.
 */
export function parseFingerprint(input: string): Fingerprint | null {
  const compact = input.trim().replace(/[:\s]/g, '').toLowerCase();
  if (!/^[0-9a-f]+$/.test(compact)) return null;
  if (compact.length === 64) return { algorithm: 'sha256', hex: compact };
  if (compact.length === 40) return { algorithm: 'sha1', hex: compact };
  return null;
}
