// Enough HTML for e-mail bodies: not a browser, but readable plain text from the markup template
// authors write (paragraphs, headings, tables, lists, links, <pre>). Whitespace in the markup is
// folded as a browser folds it, so indentation in the template never reaches the reader.
import { decodeEntities } from './html-entities';

interface HtmlTag {
  name: string;
  closing: boolean;
  source: string;
}

type HtmlToken = { kind: 'text'; text: string } | ({ kind: 'tag' } & HtmlTag);

/** Their content is not text a reader should see. */
const SKIPPED_ELEMENTS = new Set(['head', 'title', 'style', 'script', 'template', 'noscript']);
/** Followed by a blank line. */
const PARAGRAPH_ELEMENTS = new Set(['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote']);
/** Start on a line of their own. */
const LINE_ELEMENTS = new Set([
  'div',
  'tr',
  'li',
  'ul',
  'ol',
  'table',
  'thead',
  'tbody',
  'tfoot',
  'hr',
  'section',
  'article',
  'header',
  'footer',
  'center',
  'dl',
  'dt',
  'dd',
  'address',
]);
const CELL_ELEMENTS = new Set(['td', 'th']);
const MARKUP_WHITESPACE = /[ \t\n\r\f]+/g;
const LINK_TARGET = /^(?:https?:|mailto:)/i;

/** HTML to readable text: the text alternative of every e-mail. */
export function htmlToText(html: string): string {
  const text = new PlainTextBuilder();
  for (const token of tokenizeHtml(html)) {
    if (token.kind === 'text') text.appendText(token.text);
    else text.applyTag(token);
  }
  return text.finish();
}

class PlainTextBuilder {
  private out = '';
  private preDepth = 0;
  private preJustOpened = false;
  private link: { href: string; labelStart: number } | undefined;

  appendText(raw: string): void {
    if (this.preDepth > 0) {
      // Like browsers, drop the newline that directly follows <pre>.
      this.out += decodeEntities(this.preJustOpened ? raw.replace(/^\r?\n/, '') : raw);
    } else {
      this.appendInline(decodeEntities(raw.replace(MARKUP_WHITESPACE, ' ')));
    }
    this.preJustOpened = false;
  }

  applyTag(tag: HtmlTag): void {
    const { name, closing } = tag;
    if (name === 'br') this.lineBreak();
    else if (name === 'pre') this.togglePre(closing);
    else if (PARAGRAPH_ELEMENTS.has(name)) this.ensureBlankLine();
    else if (name === 'li' && !closing) this.startListItem();
    else if (LINE_ELEMENTS.has(name)) this.ensureLineBreak();
    else if (CELL_ELEMENTS.has(name) && closing) this.appendInline(' ');
    else if (name === 'a') this.applyLink(tag);
  }

  finish(): string {
    const lines = this.out.split('\n').map((line) => line.trimEnd());
    return lines
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .replace(/^\n+/, '')
      .trimEnd();
  }

  /** A space at the start of a line or after another space is markup whitespace, not text. */
  private appendInline(text: string): void {
    const atBoundary = this.out === '' || this.out.endsWith('\n') || this.out.endsWith(' ');
    this.out += atBoundary && text.startsWith(' ') ? text.slice(1) : text;
  }

  private togglePre(closing: boolean): void {
    this.ensureLineBreak();
    this.preDepth = Math.max(0, this.preDepth + (closing ? -1 : 1));
    this.preJustOpened = !closing;
  }

  private startListItem(): void {
    this.ensureLineBreak();
    this.out += '- ';
  }

  /** Keeps a link's target readable: `label (https://...)`. */
  private applyLink(tag: HtmlTag): void {
    if (!tag.closing) {
      const href = readHref(tag.source);
      this.link = href !== undefined && LINK_TARGET.test(href) ? { href, labelStart: this.out.length } : undefined;
      return;
    }
    if (this.link === undefined) return;
    const { href, labelStart } = this.link;
    this.link = undefined;
    const label = this.out.slice(labelStart).trim();
    if (label === '') this.appendInline(href);
    else if (label !== href && label !== href.replace(/^mailto:/i, '')) this.appendInline(` (${href})`);
  }

  private lineBreak(): void {
    this.trimTrailingSpaces();
    this.out += '\n';
  }

  private ensureLineBreak(): void {
    this.trimTrailingSpaces();
    if (this.out !== '' && !this.out.endsWith('\n')) this.out += '\n';
  }

  private ensureBlankLine(): void {
    this.trimTrailingSpaces();
    if (this.out === '' || this.out.endsWith('\n\n')) return;
    this.out += this.out.endsWith('\n') ? '\n' : '\n\n';
  }

  private trimTrailingSpaces(): void {
    let end = this.out.length;
    while (end > 0 && (this.out[end - 1] === ' ' || this.out[end - 1] === '\t')) end--;
    if (end < this.out.length) this.out = this.out.slice(0, end);
  }
}

function* tokenizeHtml(html: string): Generator<HtmlToken> {
  let cursor = 0;
  while (cursor < html.length) {
    const lessThan = html.indexOf('<', cursor);
    if (lessThan === -1) {
      yield { kind: 'text', text: html.slice(cursor) };
      return;
    }
    if (lessThan > cursor) yield { kind: 'text', text: html.slice(cursor, lessThan) };
    const markup = readMarkup(html, lessThan);
    if (markup === undefined) {
      // `a < b` in text: the `<` is literal.
      yield { kind: 'text', text: '<' };
      cursor = lessThan + 1;
      continue;
    }
    if (markup.tag) yield { kind: 'tag', ...markup.tag };
    cursor = markup.end;
  }
}

/** Comments, doctypes and skipped elements come back without a tag: they produce no text. */
function readMarkup(html: string, start: number): { end: number; tag?: HtmlTag } | undefined {
  if (html.startsWith('<!--', start)) return { end: endAfter(html, '-->', start + 4) };
  if (html.startsWith('<!', start) || html.startsWith('<?', start)) return { end: endAfter(html, '>', start + 2) };

  const tagName = /<(\/?)([a-zA-Z][a-zA-Z0-9-]*)/y;
  tagName.lastIndex = start;
  const match = tagName.exec(html);
  if (match === null) return undefined;
  const tagEnd = findTagEnd(html, tagName.lastIndex);
  if (tagEnd === -1) return undefined;

  const tag = { name: match[2].toLowerCase(), closing: match[1] === '/', source: html.slice(start, tagEnd + 1) };
  if (!tag.closing && SKIPPED_ELEMENTS.has(tag.name)) return { end: endOfElement(html, tag.name, tagEnd + 1) };
  return { end: tagEnd + 1, tag };
}

/** The `>` closing a tag, ignoring any inside quoted attribute values. */
function findTagEnd(html: string, from: number): number {
  let quote: string | undefined;
  for (let index = from; index < html.length; index++) {
    const character = html[index];
    if (quote !== undefined) {
      if (character === quote) quote = undefined;
    } else if (character === '"' || character === "'") {
      quote = character;
    } else if (character === '>') {
      return index;
    }
  }
  // An unbalanced quote (`<a title=don't>`): settle for the first `>`.
  return html.indexOf('>', from);
}

function endAfter(html: string, terminator: string, from: number): number {
  const index = html.indexOf(terminator, from);
  return index === -1 ? html.length : index + terminator.length;
}

/** Past `</name>`; the rest of the document when the element is never closed. */
function endOfElement(html: string, name: string, from: number): number {
  const closing = new RegExp(`</${name}\\b[^>]*>`, 'gi');
  closing.lastIndex = from;
  return closing.exec(html) === null ? html.length : closing.lastIndex;
}

function readHref(tagSource: string): string | undefined {
  const match = /\shref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/i.exec(tagSource);
  if (match === null) return undefined;
  const value = match[1] ?? match[2] ?? match[3];
  return decodeEntities(value).trim();
}
