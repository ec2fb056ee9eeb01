import { mintCertificate, privateKeyPem } from '@certkeeper/domain/testing';
import { upgradePop3 } from './pop3';
import { describeUpgrader } from '../../../test/support/starttls/upgrader-suite';

// The test server's certificate (minted here: @certkeeper/domain/testing is for specs only).
const mint = async (name: string) => {
  const minted = await mintCertificate({ subject: `CN=${name}`, sans: [name] });
  return { certPem: minted.pem, keyPem: await privateKeyPem(minted.keys.privateKey) };
};

describe('upgradePop3 against a test server', () => {
  describeUpgrader({
    protocol: 'pop3',
    mint,
    upgrade: upgradePop3,
    refusal: { reply: '-ERR [IN-USE] TLS already active', error: 'upgrade refused: -ERR [IN-USE] TLS already active' },
    stalledAfterGreeting: 'no reply to CAPA within 300 ms',
    stalledAtGreeting: 'no greeting within 300 ms',
    stalledAtUpgrade: 'no reply to STLS within 300 ms',
    overlong: /^greeting: line longer than 8192 bytes$/,
  });
});
