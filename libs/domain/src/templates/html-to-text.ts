// The text alternative of every e-mail, by html-to-text (htmlparser2 underneath: entities are
// decoded once, by the parser, with the full HTML5 table). Configured for what alert mail needs:
// no wrapping (a 95-character fingerprint stays on one line), tables as `Label: value` rows,
// paragraphs and headings separated by one blank line, and link targets kept only where a reader
// can follow them.
import type { DomNode, FormatCallback, SelectorDefinition } from 'html-to-text';
import { loadedOnFirstUse } from '../loaded-on-first-use';

/** Only these targets are worth printing beside a label; relative, `#` and `javascript:` ones are not. */
const LINK_TARGET = /^(?:https?:|mailto:)/i;

const lines = (count: number) => ({ leadingLineBreaks: count, trailingLineBreaks: count });

const FORMATTERS: Record<string, FormatCallback> = {
  /** A table cell is followed by a space, so a row reads `Label: value` rather than `Label:value`. */
  cell(elem, walk, builder) {
    walk(elem.children, builder);
    builder.addInline(' ');
  },
  /** As browsers do, the newline right after `<pre>` is not content. */
  preformatted(elem, walk, builder) {
    const [first] = elem.children;
    // The DOM is parsed per call and used once: changing it here touches nothing else.
    if (first?.type === 'text' && first.data !== undefined) first.data = first.data.replace(/^\r?\n/, '');
    builder.openBlock({ isPre: true, leadingLineBreaks: 2 });
    walk(elem.children, builder);
    builder.closeBlock({ trailingLineBreaks: 2 });
  },
  /** An image is its alt text; its address means nothing in a text message. */
  altText(elem, _walk, builder) {
    const alt = (elem.attribs as Record<string, string> | undefined)?.alt?.trim();
    if (alt) builder.addInline(alt);
  },
};

const SELECTORS: SelectorDefinition[] = [
  {
    selector: 'a',
    options: {
      hideLinkHrefIfSameAsText: true,
      linkBrackets: ['(', ')'],
      // html-to-text has already turned `mailto:x` into `x`; the element still has the original.
      // (@types/html-to-text 9 does not declare the element argument html-to-text 10 passes.)
      pathRewrite: (path: string, _meta: unknown, elem?: DomNode) => (LINK_TARGET.test(hrefOf(elem)) ? path.trim() : ''),
    },
  },
  // Headings as written (html-to-text upper-cases them by default), one blank line around them.
  ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { ...lines(2), uppercase: false } })),
  { selector: 'pre', format: 'preformatted' },
  // Layout tables (every e-mail's), not data tables: one line per row, cells separated by a space.
  { selector: 'table', format: 'block', options: lines(1) },
  { selector: 'tr', format: 'block', options: lines(1) },
  { selector: 'td', format: 'cell' },
  { selector: 'th', format: 'cell' },
  { selector: 'ul', options: { ...lines(1), itemPrefix: '- ' } },
  { selector: 'ol', options: lines(1) },
  { selector: 'img', format: 'altText' },
  // Their content is not text a reader should see.
  ...['head', 'title', 'style', 'script', 'template', 'noscript'].map((selector) => ({ selector, format: 'skip' })),
];

// Loaded and compiled at the first e-mail rendered, not at every start (loaded-on-first-use.ts).
const converter = loadedOnFirstUse(() =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, not at start-up
  (require('html-to-text') as typeof import('html-to-text')).compile({ wordwrap: false, formatters: FORMATTERS, selectors: SELECTORS }),
);

/** HTML to readable text: the text alternative of every e-mail. */
export function htmlToText(html: string): string {
  // Runs of <br> or empty paragraphs would leave gaps of several blank lines: keep one.
  return converter()(html)
    .replace(/[ \t]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .replace(/^\n+/, '')
    .trimEnd();
}

function hrefOf(elem: DomNode | undefined): string {
  const href: unknown = (elem?.attribs as Record<string, unknown> | undefined)?.href;
  return typeof href === 'string' ? href.trim() : '';
}
