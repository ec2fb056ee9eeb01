import { mintChain } from '../../testing';
import { isCompleteChain } from './chain';
import { parseFirstCertificate } from './parse-certificates';
import { pkijsValidatesPath } from '../../testing/pkijs-oracle';
import type { ParsedCertificate } from './types';

const parsed = (pem: string): ParsedCertificate => {
  const result = parseFirstCertificate(pem);
  if ('error' in result) throw new Error(result.error.message);
  return result.certificate;
};

describe('isCompleteChain', () => {
  it('is true for leaf, intermediate, root in order, and false when one is missing or out of order', async () => {
    const chain = await mintChain();
    const [leaf, intermediate, root] = [chain.leaf, chain.intermediate, chain.root].map((c) => parsed(c.pem));
    expect(isCompleteChain([leaf, intermediate, root])).toBe(true);
    expect(isCompleteChain([leaf, root])).toBe(false);
    expect(isCompleteChain([leaf, intermediate])).toBe(false);
    expect(isCompleteChain([leaf, root, intermediate])).toBe(false);
    expect(isCompleteChain([leaf, intermediate], (c) => c.subjectKeyId === intermediate.subjectKeyId)).toBe(true);
    expect(isCompleteChain([])).toBe(false);
    // An independent implementation finds the same: the complete chain is a valid path to its root.
    expect(await pkijsValidatesPath(leaf.der, [intermediate.der], [root.der])).toBe(true);
    expect(await pkijsValidatesPath(leaf.der, [], [root.der])).toBe(false);
  });

  it('is true for a lone self-signed certificate', async () => {
    const chain = await mintChain();
    expect(isCompleteChain([parsed(chain.root.pem)])).toBe(true);
  });
});
