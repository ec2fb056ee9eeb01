import { discoveryHostnames } from './hostnames';

describe('discoveryHostnames', () => {
  it('puts the reverse name first, keeps DNS SANs in order, lower case and once each', () => {
    expect(discoveryHostnames('Host.Example.net', ['www.example.com', 'HOST.example.net', '*.example.com'])).toEqual([
      'host.example.net',
      'www.example.com',
      '*.example.com',
    ]);
  });

  it('leaves out IP, e-mail and URI SANs', () => {
    expect(discoveryHostnames(null, ['10.0.0.1', '2001:db8::1', 'admin@example.com', 'https://example.net/x', 'a.example'])).toEqual([
      'a.example',
    ]);
  });
});
