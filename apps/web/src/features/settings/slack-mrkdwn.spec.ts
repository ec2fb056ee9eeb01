// Jest's functions imported, not global: the web's tsconfig (which type-checks these specs) loads no test types.
import { describe, expect, it } from '@jest/globals';
import { parseMrkdwn } from './slack-mrkdwn';

describe('parseMrkdwn', () => {
  it('applies bold, italic, strike and code, and shows escaped characters as themselves', () => {
    expect(parseMrkdwn('*Certificate for &lt;!channel&gt; expires*\n\n_soon_ ~never~ `a&amp;b` 5*3*2 snake_case_name')).toEqual([
      { kind: 'bold', text: 'Certificate for <!channel> expires' },
      { kind: 'text', text: '\n\n' },
      { kind: 'italic', text: 'soon' },
      { kind: 'text', text: ' ' },
      { kind: 'strike', text: 'never' },
      { kind: 'text', text: ' ' },
      { kind: 'code', text: 'a&b' },
      { kind: 'text', text: ' 5*3*2 snake_case_name' },
    ]);
  });

  it('links web addresses, bare or with a label, and never anything else', () => {
    expect(
      parseMrkdwn('See <https://ex.example/a?b=1&amp;c=2|the runbook> or https://ex.example/x. <!here> <javascript:alert(1)|x>'),
    ).toEqual([
      { kind: 'text', text: 'See ' },
      { kind: 'link', text: 'the runbook', href: 'https://ex.example/a?b=1&c=2' },
      { kind: 'text', text: ' or ' },
      { kind: 'link', text: 'https://ex.example/x', href: 'https://ex.example/x' },
      { kind: 'text', text: '. ' },
      { kind: 'link', text: '!here', href: null },
      { kind: 'text', text: ' ' },
      { kind: 'link', text: 'x', href: null },
    ]);
  });
});
