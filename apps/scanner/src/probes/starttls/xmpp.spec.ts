import { mintCertificate, privateKeyPem } from '@certkeeper/domain/testing';
import { upgradeXmpp } from './xmpp';
import { describeUpgrader } from '../../../test/support/starttls/upgrader-suite';

// The test server's certificate (minted here: @certkeeper/domain/testing is for specs only).
const mint = async (name: string) => {
  const minted = await mintCertificate({ subject: `CN=${name}`, sans: [name] });
  return { certPem: minted.pem, keyPem: await privateKeyPem(minted.keys.privateKey) };
};

describe('upgradeXmpp against a test server', () => {
  describeUpgrader({
    protocol: 'xmpp',
    mint,
    upgrade: upgradeXmpp,
    refusal: { error: "upgrade refused: <failure xmlns='urn:ietf:params:xml:ns:xmpp-tls'/>" },
    stalledAfterGreeting: 'no stream features within 300 ms',
    stalledAtGreeting: 'no stream features within 300 ms',
    stalledAtUpgrade: 'no reply to starttls within 300 ms',
    overlong: /^stream features longer than 65536 bytes$/,
  });
});
