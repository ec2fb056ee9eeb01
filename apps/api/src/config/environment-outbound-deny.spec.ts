import { OutboundDenyList } from '@certkeeper/net';
import { ConfigurationError, parseEnvironment } from './environment';

describe('OUTBOUND_DENY', () => {
  it('is the default list when unset or blank', () => {
    expect(parseEnvironment({}, '/srv').outboundDeny).toBe(OutboundDenyList.DEFAULT);
    expect(parseEnvironment({ OUTBOUND_DENY: '  ' }, '/srv').outboundDeny).toBe(OutboundDenyList.DEFAULT);
  });

  it('replaces the default list, which "default" brings back; "none" turns it off', () => {
    expect(parseEnvironment({ OUTBOUND_DENY: '10.0.0.0/8' }, '/srv').outboundDeny.cidrs).toEqual(['10.0.0.0/8']);
    expect(parseEnvironment({ OUTBOUND_DENY: 'default,10.0.0.0/8' }, '/srv').outboundDeny.cidrs).toEqual([
      ...OutboundDenyList.DEFAULT.cidrs,
      '10.0.0.0/8',
    ]);
    expect(parseEnvironment({ OUTBOUND_DENY: 'none' }, '/srv').outboundDeny).toBe(OutboundDenyList.NONE);
  });

  it('is a configuration error naming the variable, never its value', () => {
    try {
      parseEnvironment({ OUTBOUND_DENY: '10.0.0.0/8,internal.example.com', PORT: 'x' }, '/srv');
      throw new Error('expected a configuration error');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigurationError);
      const { problems, message } = error as ConfigurationError;
      expect(problems).toContain('OUTBOUND_DENY: entry 2 is not an IPv4 or IPv6 address or CIDR block (such as 10.0.0.0/8 or fc00::/7)');
      expect(message).not.toContain('internal.example.com');
    }
  });
});
