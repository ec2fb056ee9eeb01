import { isTag, tagProblem, uniqueTags } from './tags';

describe('tags', () => {
  it.each(['env:prod', 'team', 'a'.repeat(100), 'ünïcode: ok', 'with space'])('%j is a tag', (tag) => {
    expect(isTag(tag)).toBe(true);
  });

  it.each(['', 'a'.repeat(101), 'line\nbreak', 'tab\there', 'zero\u200bwidth', 'para\u2029sep', 42, null])('%j is not', (value) => {
    expect(isTag(value)).toBe(false);
  });

  it('names the bad element in one sentence', () => {
    expect(tagProblem(3)).toBe('tags[3] must be a string of 1 to 100 printable characters (category:value or value)');
  });

  it('keeps the first of each repeated tag, in order', () => {
    expect(uniqueTags(['b', 'a', 'b', 'c', 'a'])).toEqual(['b', 'a', 'c']);
  });
});
