import { mintCertificate, privateKeyPem } from '@certkeeper/domain/testing';
import { upgradeImap } from './imap';
import { describeUpgrader } from '../../../test/support/starttls/upgrader-suite';

// The test server's certificate (minted here: @certkeeper/domain/testing is for specs only).
const mint = async (name: string) => {
  const minted = await mintCertificate({ subject: `CN=${name}`, sans: [name] });
  return { certPem: minted.pem, keyPem: await privateKeyPem(minted.keys.privateKey) };
};

describe('upgradeImap against a test server', () => {
  describeUpgrader({
    protocol: 'imap',
    mint,
    upgrade: upgradeImap,
    refusal: { reply: 'NO [UNAVAILABLE] TLS not available', error: 'upgrade refused: NO [UNAVAILABLE] TLS not available' },
    stalledAfterGreeting: 'no reply to CAPABILITY within 300 ms',
    stalledAtGreeting: 'no greeting within 300 ms',
    stalledAtUpgrade: 'no reply to STARTTLS within 300 ms',
    overlong: /^greeting: line longer than 8192 bytes$/,
  });
});
