import { mintCertificate, privateKeyPem } from '@certkeeper/domain/testing';
import { upgradeFtp } from './ftp';
import { describeUpgrader } from '../../../test/support/starttls/upgrader-suite';

// The test server's certificate (minted here: @certkeeper/domain/testing is for specs only).
const mint = async (name: string) => {
  const minted = await mintCertificate({ subject: `CN=${name}`, sans: [name] });
  return { certPem: minted.pem, keyPem: await privateKeyPem(minted.keys.privateKey) };
};

describe('upgradeFtp against a test server', () => {
  describeUpgrader({
    protocol: 'ftp',
    mint,
    upgrade: upgradeFtp,
    refusal: { reply: '431 Unable to accept security mechanism', error: 'upgrade refused: 431 Unable to accept security mechanism' },
    stalledAfterGreeting: 'no reply to AUTH TLS within 300 ms',
    stalledAtGreeting: 'no greeting within 300 ms',
    stalledAtUpgrade: 'no reply to AUTH TLS within 300 ms',
    overlong: /^greeting: line longer than 8192 bytes$/,
  });
});
