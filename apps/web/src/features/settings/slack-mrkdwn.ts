/** A run of Slack mrkdwn as Slack shows it: plain, bold, italic, struck, code, or a link. */
export type MrkdwnPart =
  { kind: 'text' | 'bold' | 'italic' | 'strike' | 'code'; text: string } | { kind: 'link'; text: string; href: string | null };

// `<target|label>` or `<target>`, a bare web address (Slack links those itself), `code`, then
// *bold*, _italic_ and ~struck~ as Slack reads them: the marks hug their text at word edges.
const TOKEN =
  /<([^<>|]+)(?:\|([^<>]*))?>|(https?:\/\/[^\s<>]*[^\s<>.,;:!?)'"])|`([^`\n]+)`|(?<![\w*])\*(?!\s)([^*\n]+?)(?<!\s)\*(?![\w*])|(?<!\w)_(?!\s)([^_\n]+?)(?<!\s)_(?!\w)|(?<![\w~])~(?!\s)([^~\n]+?)(?<!\s)~(?![\w~])/g;

/**
 * Splits a Slack message's mrkdwn into what Slack shows (docs/api-contract.md section 17): its
 * formatting marks and links applied, and `&amp;`, `&lt;`, `&gt;` shown as the characters they
 * stand for. A link keeps its target only when it is http(s); a mention (`<!channel>`) shows as
 * its text. Line breaks stay in the text.
 */
export function parseMrkdwn(mrkdwn: string): MrkdwnPart[] {
  const parts: MrkdwnPart[] = [];
  let at = 0;
  for (const match of mrkdwn.matchAll(TOKEN)) {
    if (match.index > at) parts.push({ kind: 'text', text: unescape(mrkdwn.slice(at, match.index)) });
    const [, target, label, address, code, bold, italic, strike] = match;
    if (address !== undefined) parts.push({ kind: 'link', text: unescape(address), href: unescape(address) });
    else if (target !== undefined) {
      const href = /^https?:\/\//i.test(target) ? unescape(target) : null;
      parts.push({ kind: 'link', text: unescape(label ?? target), href });
    } else if (code !== undefined) parts.push({ kind: 'code', text: unescape(code) });
    else if (bold !== undefined) parts.push({ kind: 'bold', text: unescape(bold) });
    else if (italic !== undefined) parts.push({ kind: 'italic', text: unescape(italic) });
    else parts.push({ kind: 'strike', text: unescape(strike) });
    at = match.index + match[0].length;
  }
  if (at < mrkdwn.length) parts.push({ kind: 'text', text: unescape(mrkdwn.slice(at)) });
  return parts;
}

function unescape(text: string): string {
  return text.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
}
