// Jest's functions imported, not global: the web's tsconfig (which type-checks these specs) loads no test types.
import { describe, expect, it } from '@jest/globals';
import { checkedProblems, firstOf, splitProblems } from './form-problems';

const ENDPOINT_FIELDS = ['name', 'dnsName', 'port', 'tag', 'tags'] as const;

describe('splitProblems', () => {
  it('puts each line beside the field it starts with', () => {
    const problems = splitProblems('port must not be greater than 65535\nname should not be empty', ENDPOINT_FIELDS);
    expect(problems).toEqual({
      byField: { port: 'port must not be greater than 65535', name: 'name should not be empty' },
      general: null,
    });
  });

  it('keeps the lines that name no field together, as the API wrote them', () => {
    const problems = splitProblems(
      'An endpoint with this name already exists.\nport must be an integer\nTry again later.',
      ENDPOINT_FIELDS,
    );
    expect(problems.byField).toEqual({ port: 'port must be an integer' });
    expect(problems.general).toBe('An endpoint with this name already exists. Try again later.');
  });

  it('joins two lines about one field', () => {
    const problems = splitProblems('port must be an integer\nport must not be less than 1', ENDPOINT_FIELDS);
    expect(problems.byField).toEqual({ port: 'port must be an integer port must not be less than 1' });
  });

  it('allows "a", "an", "the" and "each value in" before the field, in any case', () => {
    const problems = splitProblems(
      'a port is required\nThe name is taken\nan dnsName must be a host name\neach value in tags must be a string',
      ENDPOINT_FIELDS,
    );
    expect(problems).toEqual({
      byField: {
        port: 'a port is required',
        name: 'The name is taken',
        dnsName: 'an dnsName must be a host name',
        tags: 'each value in tags must be a string',
      },
      general: null,
    });
  });

  it('matches the field name in any case', () => {
    expect(splitProblems('Name should not be empty', ENDPOINT_FIELDS).byField).toEqual({ name: 'Name should not be empty' });
  });

  it('does not take a longer word that starts with a field name for that field', () => {
    // "tags" starts with "tag", "names" with "name", "portal" with "port".
    const problems = splitProblems('tags must be an array\nnames are unique per scanner\nportal is closed', ENDPOINT_FIELDS);
    expect(problems.byField).toEqual({ tags: 'tags must be an array' });
    expect(problems.general).toBe('names are unique per scanner portal is closed');
  });

  it('does not match a field named in the middle of a sentence', () => {
    const problems = splitProblems('the value of port is wrong', ENDPOINT_FIELDS);
    expect(problems).toEqual({ byField: {}, general: 'the value of port is wrong' });
  });

  it('reads a field name literally, not as a pattern', () => {
    const problems = splitProblems('smtpXhost is wrong\nsmtp.host must be a host name', ['smtp.host']);
    expect(problems).toEqual({ byField: { 'smtp.host': 'smtp.host must be a host name' }, general: 'smtpXhost is wrong' });
  });

  it('ignores blank lines and the spaces around each line', () => {
    expect(splitProblems('\n  port must be an integer  \n\n', ENDPOINT_FIELDS)).toEqual({
      byField: { port: 'port must be an integer' },
      general: null,
    });
    expect(splitProblems('', ENDPOINT_FIELDS)).toEqual({ byField: {}, general: null });
  });

  it('with no field to match, everything is general', () => {
    expect(splitProblems('port must be an integer', [])).toEqual({ byField: {}, general: 'port must be an integer' });
  });
});

describe('checkedProblems', () => {
  it('is null when every check passed', () => {
    expect(checkedProblems({ name: null, port: undefined })).toBeNull();
  });

  it('keeps every field with a sentence and says nothing was sent, counting them', () => {
    expect(checkedProblems({ name: 'Enter a name.', port: 'The port is a whole number from 1 to 65535.', tags: null })).toEqual({
      byField: { name: 'Enter a name.', port: 'The port is a whole number from 1 to 65535.' },
      general: 'Nothing was sent: correct the 2 marked fields.',
    });
    expect(checkedProblems({ name: 'Enter a name.' })?.general).toBe('Nothing was sent: correct the marked field.');
  });

  it('firstOf answers the first sentence of several checks', () => {
    expect(firstOf(null, 'b', 'c')).toBe('b');
    expect(firstOf(null, null)).toBeNull();
  });
});
