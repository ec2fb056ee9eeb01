import { OutboundGuard, parseOutboundDeny } from '../src';

/**
 * The guard the probe tests use: OUTBOUND_DENY from the test run's environment when set, else the
 * default list (which lets loopback through). So `OUTBOUND_DENY=127.0.0.0/8 npx jest apps/scanner`
 * shows every probe of a loopback test server refused by the guard. Never used by the agent.
 */
export function testOutboundGuard(): OutboundGuard {
  const raw = process.env.OUTBOUND_DENY?.trim();
  if (!raw) return OutboundGuard.DEFAULT;
  const parsed = parseOutboundDeny(raw);
  if (!parsed.ok) throw new Error(`OUTBOUND_DENY: ${parsed.problem}`);
  return new OutboundGuard(parsed.value);
}
