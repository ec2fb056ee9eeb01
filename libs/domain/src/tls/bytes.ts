/**
 * The few encodings TLS's presentation language needs: big-endian integers and vectors with a
 * 1-, 2- or 3-byte length prefix. Writers return Buffers; the reader throws TruncatedInput, which
 * each parser turns into a result, so no caller sees an exception for bad bytes.
 */

export type LengthBytes = 1 | 2 | 3;

export function uint8(value: number): Buffer {
  return Buffer.from([value & 0xff]);
}

export function uint16(value: number): Buffer {
  return Buffer.from([(value >> 8) & 0xff, value & 0xff]);
}

export function uint24(value: number): Buffer {
  return Buffer.from([(value >> 16) & 0xff, (value >> 8) & 0xff, value & 0xff]);
}

/** A vector: the body's length in `lengthBytes` big-endian bytes, then the body. */
export function vector(lengthBytes: LengthBytes, ...parts: Uint8Array[]): Buffer {
  const body = Buffer.concat(parts);
  const prefix = lengthBytes === 1 ? uint8(body.length) : lengthBytes === 2 ? uint16(body.length) : uint24(body.length);
  return Buffer.concat([prefix, body]);
}

/** A list of 16-bit code points (cipher suites, groups, signature schemes) as a vector. */
export function uint16List(lengthBytes: LengthBytes, values: readonly number[]): Buffer {
  return vector(lengthBytes, ...values.map(uint16));
}

export class TruncatedInput extends Error {
  constructor() {
    super('truncated input');
  }
}

/** Reads forward through a buffer; every read checks bounds first. */
export class ByteReader {
  private offset = 0;

  constructor(private readonly bytes: Uint8Array) {}

  get remaining(): number {
    return this.bytes.length - this.offset;
  }

  uint8(): number {
    return this.take(1)[0];
  }

  uint16(): number {
    const [high, low] = this.take(2);
    return (high << 8) | low;
  }

  uint24(): number {
    const [high, middle, low] = this.take(3);
    return (high << 16) | (middle << 8) | low;
  }

  take(length: number): Uint8Array {
    if (length > this.remaining) throw new TruncatedInput();
    const slice = this.bytes.subarray(this.offset, this.offset + length);
    this.offset += length;
    return slice;
  }

  vector(lengthBytes: LengthBytes): Uint8Array {
    const length = lengthBytes === 1 ? this.uint8() : lengthBytes === 2 ? this.uint16() : this.uint24();
    return this.take(length);
  }

  uint16List(lengthBytes: LengthBytes): number[] {
    const list = new ByteReader(this.vector(lengthBytes));
    const values: number[] = [];
    while (list.remaining >= 2) values.push(list.uint16());
    if (list.remaining !== 0) throw new TruncatedInput();
    return values;
  }
}
