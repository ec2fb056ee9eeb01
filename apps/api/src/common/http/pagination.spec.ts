import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { ListWindowQueryDto, PageQueryDto, toPage } from './pagination';

function parse<T extends object>(type: new () => T, query: Record<string, string>): { value: T; problems: string[] } {
  const value = plainToInstance(type, query);
  const problems = validateSync(value, { whitelist: true, forbidNonWhitelisted: true }).flatMap((e) => Object.values(e.constraints ?? {}));
  return { value, problems };
}

describe('pagination queries', () => {
  it('default to 50/0 for pages and 500/0 for list windows', () => {
    expect(parse(PageQueryDto, {}).value).toMatchObject({ limit: 50, offset: 0 });
    expect(parse(ListWindowQueryDto, {}).value).toMatchObject({ limit: 500, offset: 0 });
  });

  it('read integers from query strings', () => {
    expect(parse(PageQueryDto, { limit: '500', offset: '20' })).toEqual({
      value: expect.objectContaining({ limit: 500, offset: 20 }),
      problems: [],
    });
    expect(parse(ListWindowQueryDto, { limit: '5000', offset: '10000000' }).problems).toEqual([]);
  });

  it.each([
    [PageQueryDto, { limit: '501' }],
    [PageQueryDto, { limit: '0' }],
    [PageQueryDto, { limit: 'ten' }],
    [PageQueryDto, { offset: '-1' }],
    [PageQueryDto, { offset: '1.5' }],
    [PageQueryDto, { offset: '10000001' }],
    [PageQueryDto, { offset: '99999999999999999999' }],
    [ListWindowQueryDto, { offset: '1e20' }],
    [ListWindowQueryDto, { limit: '5001' }],
  ])('refuses %p %j', (type, query) => {
    expect(parse(type as new () => object, query).problems.length).toBeGreaterThan(0);
  });

  it('builds the envelope', () => {
    expect(toPage(['a'], 7, { limit: 1, offset: 3 })).toEqual({ items: ['a'], totalCount: 7, limit: 1, offset: 3 });
  });
});
