import { withAdminClient } from '../../test/support/test-database';
import { inlined } from './inlined';

describe('inlined', () => {
  it('writes text, whole numbers, times, null and arrays in as literals, each parameter where it is named', () => {
    expect(
      inlined({
        text: 'SELECT $1, $2, $10, $3::timestamptz, $4, $5::text[], $6::int[]',
        values: ["it's", 42, new Date('2026-11-28T17:00:00.123Z'), null, ['a', "b'c"], [1, 2], 7, 8, 9, -3],
      }),
    ).toBe(`SELECT 'it''s', 42, -3, '2026-11-28T17:00:00.123Z'::timestamptz, NULL, ARRAY['a', 'b''c']::text[], ARRAY[1, 2]::int[]`);
  });

  it('reads back from PostgreSQL as the values given, quotes and backslashes included', async () => {
    const values = ["quote ' and backslash \\' end", new Date('2026-11-28T17:00:00.123Z'), ['x\\', "'y"], -7];
    const { rows } = await withAdminClient((client) =>
      client.query<{ text: string; at: Date; list: string[]; whole: number }>(
        inlined({ text: 'SELECT $1::text AS text, $2::timestamptz AS at, $3::text[] AS list, $4::int AS whole', values }),
      ),
    );
    expect(rows).toEqual([{ text: values[0], at: values[1], list: values[2], whole: -7 }]);
  });

  it('refuses a value it has no literal for, and a parameter without a value', () => {
    expect(() => inlined({ text: 'SELECT $1', values: [1.5] })).toThrow(TypeError);
    expect(() => inlined({ text: 'SELECT $1', values: [{ a: 1 }] })).toThrow(TypeError);
    expect(() => inlined({ text: 'SELECT $1', values: [undefined] })).toThrow(TypeError);
    expect(() => inlined({ text: 'SELECT $2', values: ['only one'] })).toThrow(RangeError);
  });
});
