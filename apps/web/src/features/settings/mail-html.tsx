import { useEffect, useRef } from 'react';

/*
 * The HTML part of a template preview, shown as a mail client would show it. The page's CSP
 * (style-src 'self') also governs a srcdoc iframe, so the inline styles e-mail HTML relies on
 * would be refused there. Instead the HTML is parsed inert, rebuilt from an allow-list of
 * elements and attributes (nothing that runs, loads or submits), its style attributes applied
 * through the CSSOM (which the CSP allows), and shown in a shadow root so that neither the page's
 * styles nor the message's leak into the other.
 */

/**
 * Chromium reports a CSP violation for every style attribute and element it parses, even into an
 * inert document: they are renamed first (the elements are then dropped, as mail clients do).
 */
const STYLE_ATTRIBUTE = 'data-preview-style';
const STYLE_ELEMENT = 'preview-style-element';
function renameStyles(html: string): string {
  return html
    .replace(/<(\/?)style\b/gi, `<$1${STYLE_ELEMENT}`)
    .replace(/<[a-z][^<>]*>/gi, (tag) => tag.replace(/(\s)style(\s*=)/gi, `$1${STYLE_ATTRIBUTE}$2`));
}

const ALLOWED_ELEMENTS = new Set(
  (
    'a abbr b blockquote br caption center code col colgroup dd del div dl dt em font h1 h2 h3 h4 h5 h6 hr i ins li ' +
    'ol p pre s small span strike strong sub sup table tbody td tfoot th thead tr u ul'
  ).split(' '),
);
const ALLOWED_ATTRIBUTES = new Set(
  'align bgcolor border cellpadding cellspacing color colspan dir face height lang role rowspan scope size title valign width'.split(' '),
);
/** Elements dropped with their content: what they hold is not meant to be read as text. */
const DROPPED_WITH_CONTENT = new Set([
  'script',
  'style',
  'template',
  'noscript',
  'iframe',
  'object',
  'embed',
  'head',
  'title',
  'svg',
  'math',
]);

function rebuild(source: Node, into: Node, document: Document): void {
  for (const child of Array.from(source.childNodes)) {
    if (child.nodeType === Node.TEXT_NODE) {
      into.appendChild(document.createTextNode(child.textContent ?? ''));
      continue;
    }
    if (!(child instanceof Element)) continue;
    const name = child.localName;
    if (DROPPED_WITH_CONTENT.has(name)) continue;
    if (name === 'img') {
      // Nothing is fetched: an image shows as its alternative text.
      const alt = child.getAttribute('alt');
      if (alt) into.appendChild(document.createTextNode(`[${alt}]`));
      continue;
    }
    if (!ALLOWED_ELEMENTS.has(name)) {
      // Unknown wrappers (html, body, custom tags) keep their content.
      rebuild(child, into, document);
      continue;
    }
    const copy = document.createElement(name);
    for (const attribute of Array.from(child.attributes)) {
      if (ALLOWED_ATTRIBUTES.has(attribute.name)) copy.setAttribute(attribute.name, attribute.value);
    }
    const style = child.getAttribute(STYLE_ATTRIBUTE);
    if (style) copy.style.cssText = style;
    if (name === 'a') {
      // A link shows where it leads but is not followed from the preview.
      const href = child.getAttribute('href');
      if (href) copy.title = href;
    }
    rebuild(child, copy, document);
    into.appendChild(copy);
  }
}

export function MailHtml({ html, label }: { html: string; label: string }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = host.current;
    if (!element) return;
    const root = element.shadowRoot ?? element.attachShadow({ mode: 'open' });
    const parsed = new DOMParser().parseFromString(renameStyles(html), 'text/html');
    const content = document.createElement('div');
    content.style.cssText = 'background:#fff;color:#111;font-family:sans-serif;padding:8px;';
    rebuild(parsed.body, content, document);
    root.replaceChildren(content);
  }, [html]);
  return <div ref={host} className="mail-html" role="group" aria-label={label} />;
}
