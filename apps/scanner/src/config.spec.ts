import { parseScannerEnvironment, ScannerConfigurationError } from './config';

describe('parseScannerEnvironment', () => {
  it('reads the API address and token', () => {
    expect(parseScannerEnvironment({ SCANNER_API_URL: 'https://certs.example.com/', SCANNER_TOKEN: 'stx_s_abc' })).toEqual({
      apiUrl: 'https://certs.example.com',
      token: 'stx_s_abc',
    });
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
