import { decodeObjectIdentifier, DerError, readChildren, readDerElement, readSingleDerElement, TruncatedDerError } from './der';

const bytes = (hex: string) => Uint8Array.from(Buffer.from(hex.replace(/\s/g, ''), 'hex'));

describe('readDerElement', () => {
  it('reads short and long definite lengths', () => {
    expect(readDerElement(bytes('04 02 abcd')).content).toEqual(bytes('abcd'));
    const long = readDerElement(bytes(`04 81 80 ${'00'.repeat(128)}`));
    expect(long.content).toHaveLength(128);
    expect(long.encoded).toHaveLength(131);
  });

  it.each([
    ['content cut short', '30 05 0201'],
    ['missing length', '30'],
    ['long length cut short', '30 82 01'],
    ['empty input', ''],
  ])('reports truncation: %s', (_, hex) => {
    expect(() => readDerElement(bytes(hex))).toThrow(TruncatedDerError);
  });

  it.each([
    ['indefinite length', '30 80 0000'],
    ['multi-byte tag', '1f 81 00 00'],
    ['five length octets', `04 85 0000000001 00`],
  ])('refuses what DER does not allow: %s', (_, hex) => {
    expect(() => readDerElement(bytes(hex))).toThrow(DerError);
  });
});

describe('readSingleDerElement', () => {
  it('refuses bytes after the element', () => {
    expect(() => readSingleDerElement(bytes('0500 00'))).toThrow(DerError);
  });
});

describe('readChildren', () => {
  it('lists the elements of a SEQUENCE in order', () => {
    const children = readChildren(readDerElement(bytes('30 06 0201 05 0101 ff')));
    expect(children.map((child) => child.tag)).toEqual([0x02, 0x01]);
  });

  it('refuses a primitive element', () => {
    expect(() => readChildren(readDerElement(bytes('04 01 00')))).toThrow(DerError);
  });
});

describe('decodeObjectIdentifier', () => {
  it.each([
    ['06 09 2a864886f70d01010b', '1.2.840.113549.1.1.11'],
    ['06 03 2b6570', '1.3.101.112'],
    ['06 03 550403', '2.5.4.3'],
    // 2.25 + a UUID: arcs beyond 2^53 must survive.
    ['06 14 6983f09da7ebcfdee0c7a1a7b2c0948cc8f9d776', '2.25.329800735698586629295641978511506172918'],
  ])('decodes %s as %s', (hex, oid) => {
    expect(decodeObjectIdentifier(readDerElement(bytes(hex)))).toBe(oid);
  });

  it('refuses an arc that never ends', () => {
    expect(() => decodeObjectIdentifier(readDerElement(bytes('06 02 2a86')))).toThrow(DerError);
  });
});
