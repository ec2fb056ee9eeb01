import { OutboundRefusedError } from '@certkeeper/net';

/**
 * How an SMTP round trip failed (docs/api-contract.md section 6). The mail test's 502, the alert
 * run's `failures` and the log lines all say it in these terms and never in the remote server's
 * words: a relay's reply text is whatever its operator (or whoever answers on that port) wrote.
 */
export const SMTP_FAILURE_REASONS = [
  'outbound-denied',
  'dns',
  'refused',
  'unreachable',
  'timeout',
  'tls',
  'authentication',
  'rejected',
  'connection-lost',
  'other',
] as const;
export type SmtpFailureReason = (typeof SMTP_FAILURE_REASONS)[number];

export interface SmtpFailure {
  reason: SmtpFailureReason;
  /** The SMTP reply code the relay answered with (550), when it answered with one. */
  replyCode: number | null;
  /** The command the relay answered (`RCPT TO`), `greeting` for its first line; null when unknown. */
  step: string | null;
  /** A code this machine gave (ECONNREFUSED, DEPTH_ZERO_SELF_SIGNED_CERT), or the guard's own sentence for OUTBOUND_DENY. */
  detail: string | null;
}

/** What nodemailer (and Node beneath it) puts on the errors it rejects a send with. */
interface NodemailerError {
  code?: unknown;
  originalCode?: unknown;
  responseCode?: unknown;
  command?: unknown;
}

/** nodemailer's names of the commands it sends; 'CONN' is the connection and its greeting. */
const STEPS: Record<string, string> = {
  CONN: 'greeting',
  EHLO: 'EHLO',
  HELO: 'HELO',
  LHLO: 'LHLO',
  STARTTLS: 'STARTTLS',
  'AUTH PLAIN': 'AUTH',
  'AUTH LOGIN': 'AUTH',
  'MAIL FROM': 'MAIL FROM',
  'RCPT TO': 'RCPT TO',
  DATA: 'DATA',
};

const DNS_CODES = new Set(['EDNS', 'ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'ENODATA', 'ESERVFAIL', 'ETIMEOUT']);
const UNREACHABLE_CODES = new Set(['EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ENETDOWN', 'EADDRNOTAVAIL']);
const CONNECTION_LOST_CODES = new Set(['ECONNECTION', 'ECONNRESET', 'EPIPE', 'ECONNABORTED']);
/** OpenSSL's and Node's TLS codes and the certificate verification codes (X509_V_ERR_* without the prefix). */
const TLS_CODE = /^ERR_(SSL|TLS)_|CERT|SELF_SIGNED|^UNABLE_TO_|^INVALID_CA$|^PATH_LENGTH_EXCEEDED$|^INVALID_PURPOSE$|^HOSTNAME_MISMATCH$/;
/** A code is an identifier, never a sentence: anything else is not repeated. */
const CODE = /^[A-Z][A-Z0-9_]{1,63}$/;

/**
 * Classifies what a send was rejected with, from the error's code, nodemailer's `originalCode`
 * (the system or TLS code under its own), the reply code and the command, never its message or
 * `response`, which carry the relay's text.
 */
export function classifySmtpFailure(error: unknown): SmtpFailure {
  if (error instanceof OutboundRefusedError) return { reason: 'outbound-denied', replyCode: null, step: null, detail: error.message };
  const failure = (typeof error === 'object' && error !== null ? error : {}) as NodemailerError;
  const code = codeOf(failure.code);
  const originalCode = codeOf(failure.originalCode);
  const replyCode =
    typeof failure.responseCode === 'number' && failure.responseCode >= 200 && failure.responseCode <= 599 ? failure.responseCode : null;
  const step = typeof failure.command === 'string' && Object.hasOwn(STEPS, failure.command) ? STEPS[failure.command] : null;
  const systemCode = originalCode ?? code;
  const classified = (reason: SmtpFailureReason, detail: string | null = null): SmtpFailure => ({ reason, replyCode, step, detail });

  if (code === 'EAUTH' || code === 'ENOAUTH') return classified('authentication');
  if (code === 'ETLS') return classified('tls', originalCode);
  if (systemCode !== null && TLS_CODE.test(systemCode)) return classified('tls', systemCode);
  if (replyCode !== null) return classified('rejected');
  if (code === 'ETIMEDOUT' || systemCode === 'ETIMEDOUT') return classified('timeout');
  if (systemCode === 'ECONNREFUSED') return classified('refused', systemCode);
  if (systemCode !== null && DNS_CODES.has(systemCode)) return classified('dns', systemCode);
  if (systemCode !== null && UNREACHABLE_CODES.has(systemCode)) return classified('unreachable', systemCode);
  if ((code !== null && CONNECTION_LOST_CODES.has(code)) || (systemCode !== null && CONNECTION_LOST_CODES.has(systemCode)))
    return classified('connection-lost');
  return classified('other', systemCode);
}

function codeOf(value: unknown): string | null {
  return typeof value === 'string' && CODE.test(value) ? value : null;
}

/** The failure as the end of a sentence: "The SMTP round trip failed: <this>". */
export function describeSmtpFailure(failure: SmtpFailure): string {
  const code = failure.detail === null ? '' : ` (${failure.detail})`;
  const reply = failure.replyCode === null ? '' : ` with reply code ${failure.replyCode}`;
  switch (failure.reason) {
    case 'outbound-denied':
      return failure.detail ?? 'refused by OUTBOUND_DENY';
    case 'dns':
      return `the relay's name could not be resolved${code}`;
    case 'refused':
      return `the relay refused the connection${code}`;
    case 'unreachable':
      return `the relay could not be reached${code}`;
    case 'timeout':
      return 'the relay did not answer in time';
    case 'tls':
      if (failure.replyCode !== null) return `the relay refused ${failure.step ?? 'STARTTLS'}${reply}`;
      return failure.detail !== null && !failure.detail.startsWith('ERR_')
        ? `the relay's TLS certificate was not accepted${code}`
        : `the TLS handshake with the relay failed${code}`;
    case 'authentication':
      return `the relay did not accept the user name and password${reply}`;
    case 'rejected':
      if (failure.step === 'greeting') return `the relay answered the connection${reply}`;
      return `the relay rejected ${failure.step ?? 'the message'}${reply}`;
    case 'connection-lost':
      return 'the relay closed the connection unexpectedly';
    case 'other':
      return `the SMTP exchange failed unexpectedly${code}`;
  }
}
