import { OutboundRefusedError } from '@certkeeper/net';
import { classifySmtpFailure, describeSmtpFailure, type SmtpFailure } from './smtp-failure';

/** An error as nodemailer rejects a send with: its message and response carry the relay's text. */
const nodemailerError = (fields: Record<string, unknown>) =>
  Object.assign(new Error("Can't send mail - all recipients were rejected: 550 secret-banner-text"), {
    response: '550 secret-banner-text',
    ...fields,
  });

describe('classifySmtpFailure', () => {
  it.each<[string, Record<string, unknown>, SmtpFailure, string]>([
    [
      'a recipient rejected',
      { code: 'EENVELOPE', responseCode: 550, command: 'RCPT TO' },
      { reason: 'rejected', replyCode: 550, step: 'RCPT TO', detail: null },
      'the relay rejected RCPT TO with reply code 550',
    ],
    [
      'the message refused after DATA',
      { code: 'EMESSAGE', responseCode: 554, command: 'DATA' },
      { reason: 'rejected', replyCode: 554, step: 'DATA', detail: null },
      'the relay rejected DATA with reply code 554',
    ],
    [
      'a greeting that turns the client away',
      { code: 'EPROTOCOL', responseCode: 554, command: 'CONN' },
      { reason: 'rejected', replyCode: 554, step: 'greeting', detail: null },
      'the relay answered the connection with reply code 554',
    ],
    [
      'wrong credentials',
      { code: 'EAUTH', responseCode: 535, command: 'AUTH PLAIN' },
      { reason: 'authentication', replyCode: 535, step: 'AUTH', detail: null },
      'the relay did not accept the user name and password with reply code 535',
    ],
    [
      'a closed port',
      { code: 'ESOCKET', originalCode: 'ECONNREFUSED', command: 'CONN', errno: -111, syscall: 'connect' },
      { reason: 'refused', replyCode: null, step: 'greeting', detail: 'ECONNREFUSED' },
      'the relay refused the connection (ECONNREFUSED)',
    ],
    [
      'a relay that never greets',
      { code: 'ETIMEDOUT', command: 'CONN' },
      { reason: 'timeout', replyCode: null, step: 'greeting', detail: null },
      'the relay did not answer in time',
    ],
    [
      'a self-signed certificate',
      { code: 'ESOCKET', originalCode: 'DEPTH_ZERO_SELF_SIGNED_CERT', command: 'CONN' },
      { reason: 'tls', replyCode: null, step: 'greeting', detail: 'DEPTH_ZERO_SELF_SIGNED_CERT' },
      "the relay's TLS certificate was not accepted (DEPTH_ZERO_SELF_SIGNED_CERT)",
    ],
    [
      'implicit TLS spoken to a plain relay',
      { code: 'ESOCKET', originalCode: 'ERR_SSL_WRONG_VERSION_NUMBER', command: 'CONN' },
      { reason: 'tls', replyCode: null, step: 'greeting', detail: 'ERR_SSL_WRONG_VERSION_NUMBER' },
      'the TLS handshake with the relay failed (ERR_SSL_WRONG_VERSION_NUMBER)',
    ],
    [
      'STARTTLS refused',
      { code: 'ETLS', responseCode: 500, command: 'STARTTLS' },
      { reason: 'tls', replyCode: 500, step: 'STARTTLS', detail: null },
      'the relay refused STARTTLS with reply code 500',
    ],
    [
      'a connection closed mid-session',
      { code: 'ECONNECTION', command: 'CONN' },
      { reason: 'connection-lost', replyCode: null, step: 'greeting', detail: null },
      'the relay closed the connection unexpectedly',
    ],
    [
      'a name that does not resolve',
      { code: 'ENOTFOUND', syscall: 'getaddrinfo' },
      { reason: 'dns', replyCode: null, step: null, detail: 'ENOTFOUND' },
      "the relay's name could not be resolved (ENOTFOUND)",
    ],
    [
      'an unroutable relay',
      { code: 'ESOCKET', originalCode: 'EHOSTUNREACH', command: 'CONN' },
      { reason: 'unreachable', replyCode: null, step: 'greeting', detail: 'EHOSTUNREACH' },
      'the relay could not be reached (EHOSTUNREACH)',
    ],
  ])('classifies %s without the relay’s text', (_label, fields, failure, sentence) => {
    const classified = classifySmtpFailure(nodemailerError(fields));
    expect(classified).toEqual(failure);
    expect(describeSmtpFailure(classified)).toBe(sentence);
    expect(JSON.stringify(classified) + describeSmtpFailure(classified)).not.toContain('secret-banner-text');
  });

  it('keeps the guard’s own sentence for OUTBOUND_DENY', () => {
    const failure = classifySmtpFailure(new OutboundRefusedError('refused by OUTBOUND_DENY: 127.0.0.1 is in 127.0.0.0/8'));
    expect(failure).toEqual({
      reason: 'outbound-denied',
      replyCode: null,
      step: null,
      detail: 'refused by OUTBOUND_DENY: 127.0.0.1 is in 127.0.0.0/8',
    });
    expect(describeSmtpFailure(failure)).toBe('refused by OUTBOUND_DENY: 127.0.0.1 is in 127.0.0.0/8');
  });

  it('repeats a code only when it is an identifier, and names nothing it does not know', () => {
    const odd = classifySmtpFailure(nodemailerError({ code: 'secret banner text', responseCode: 'x', command: 'XYZZY secret' }));
    expect(odd).toEqual({ reason: 'other', replyCode: null, step: null, detail: null });
    expect(describeSmtpFailure(odd)).toBe('the SMTP exchange failed unexpectedly');
    expect(classifySmtpFailure(nodemailerError({ code: 'EPROTOCOL' }))).toMatchObject({ reason: 'other', detail: 'EPROTOCOL' });
    expect(classifySmtpFailure(nodemailerError({ code: 'EENVELOPE', responseCode: 550, command: 'constructor' }))).toMatchObject({
      step: null,
    });
    expect(classifySmtpFailure('not an error')).toEqual({ reason: 'other', replyCode: null, step: null, detail: null });
  });
});
