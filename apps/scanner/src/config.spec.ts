import { OutboundDenyList } from '@certkeeper/net';
import { parseScannerEnvironment, ScannerConfigurationError } from './config';

describe('parseScannerEnvironment', () => {
  it('reads the API address and token', () => {
    expect(parseScannerEnvironment({ SCANNER_API_URL: 'https://certs.example.com/', SCANNER_TOKEN: 'stx_s_abc' })).toEqual({
      apiUrl: 'https://certs.example.com',
      token: 'stx_s_abc',
      connectTimeoutMs: 5000,
      handshakeTimeoutMs: 10_000,
      newWorkPollMs: 25_000,
      backToBack: false,
      outboundDeny: OutboundDenyList.DEFAULT,
      metrics: null,
    });
  });

  it('serves metrics only with SCANNER_METRICS_PORT, on loopback unless SCANNER_METRICS_HOST says otherwise', () => {
    const env = { SCANNER_API_URL: 'http://api', SCANNER_TOKEN: 'stx_s_abc' };
    expect(parseScannerEnvironment({ ...env, SCANNER_METRICS_HOST: '0.0.0.0' }).metrics).toBeNull();
    expect(parseScannerEnvironment({ ...env, SCANNER_METRICS_PORT: '9464' }).metrics).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(parseScannerEnvironment({ ...env, SCANNER_METRICS_PORT: '9464', SCANNER_METRICS_HOST: '::' }).metrics).toEqual({
      host: '::',
      port: 9464,
    });
    expect(parseScannerEnvironment({ ...env, SCANNER_METRICS_PORT: '9464', SCANNER_METRICS_HOST: 'scanner.internal' }).metrics).toEqual({
      host: 'scanner.internal',
      port: 9464,
    });
    try {
      parseScannerEnvironment({ ...env, SCANNER_METRICS_PORT: '70000', SCANNER_METRICS_HOST: 'not a host' });
      throw new Error('expected a configuration error');
    } catch (error) {
      expect((error as ScannerConfigurationError).problems).toEqual([
        'SCANNER_METRICS_PORT: must be a TCP port from 1 to 65535',
        'SCANNER_METRICS_HOST: must be an IP address or a host name to listen on',
      ]);
    }
    expect(() => parseScannerEnvironment({ ...env, SCANNER_METRICS_PORT: '0' })).toThrow('SCANNER_METRICS_PORT');
  });

  it('reads OUTBOUND_DENY, the default list when unset, and names it without its value when bad', () => {
    const env = { SCANNER_API_URL: 'http://api', SCANNER_TOKEN: 'stx_s_abc' };
    expect(parseScannerEnvironment({ ...env, OUTBOUND_DENY: ' ' }).outboundDeny).toBe(OutboundDenyList.DEFAULT);
    expect(parseScannerEnvironment({ ...env, OUTBOUND_DENY: 'default, 10.0.0.0/8' }).outboundDeny.cidrs).toEqual([
      ...OutboundDenyList.DEFAULT.cidrs,
      '10.0.0.0/8',
    ]);
    expect(parseScannerEnvironment({ ...env, OUTBOUND_DENY: 'none' }).outboundDeny).toBe(OutboundDenyList.NONE);
    try {
      parseScannerEnvironment({ ...env, OUTBOUND_DENY: '10.0.0.0/8,secret.example' });
      throw new Error('expected a configuration error');
    } catch (error) {
      const { problems, message } = error as ScannerConfigurationError;
      expect(problems).toEqual(['OUTBOUND_DENY: entry 2 is not an IPv4 or IPv6 address or CIDR block (such as 10.0.0.0/8 or fc00::/7)']);
      expect(message).not.toContain('secret');
    }
  });

  it('reads the probe deadlines and refuses nonsense', () => {
    const env = { SCANNER_API_URL: 'http://api', SCANNER_TOKEN: 'stx_s_abc' };
    expect(parseScannerEnvironment({ ...env, SCANNER_CONNECT_TIMEOUT_MS: '750', SCANNER_HANDSHAKE_TIMEOUT_MS: '1500' })).toMatchObject({
      connectTimeoutMs: 750,
      handshakeTimeoutMs: 1500,
    });
    expect(() => parseScannerEnvironment({ ...env, SCANNER_HANDSHAKE_TIMEOUT_MS: 'soon' })).toThrow('SCANNER_HANDSHAKE_TIMEOUT_MS');
  });

  it('names both problems at once and never echoes the token', () => {
    try {
      parseScannerEnvironment({ SCANNER_API_URL: 'ftp://x', SCANNER_TOKEN: 'stx_p_user_key_secret' });
      throw new Error('expected a configuration error');
    } catch (error) {
      expect(error).toBeInstanceOf(ScannerConfigurationError);
      const { problems, message } = error as ScannerConfigurationError;
      expect(problems.map((p) => p.split(':')[0])).toEqual(['SCANNER_API_URL', 'SCANNER_TOKEN']);
      expect(message).not.toContain('secret');
    }
  });
});
