// The named entities e-mail markup actually uses; an unknown name is left as written rather
// than guessed at (a full HTML5 table is 2,000 entries for no practical gain here).
const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  copy: '©',
  reg: '®',
  trade: '™',
  hellip: '…',
  mdash: '—',
  ndash: '–',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  laquo: '«',
  raquo: '»',
  bull: '•',
  middot: '·',
  times: '×',
  euro: '€',
  deg: '°',
  larr: '←',
  rarr: '→',
};

const ENTITY = /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([a-zA-Z][a-zA-Z0-9]{1,31}));/g;
const REPLACEMENT_CHARACTER = '\ufffd';

export function decodeEntities(text: string): string {
  return text.replace(ENTITY, (entity, decimal?: string, hex?: string, name?: string) => {
    if (decimal !== undefined) return fromCodePoint(Number.parseInt(decimal, 10));
    if (hex !== undefined) return fromCodePoint(Number.parseInt(hex, 16));
    // hasOwn, or `&constructor;` would find Object.prototype's.
    return name !== undefined && Object.hasOwn(NAMED_ENTITIES, name) ? NAMED_ENTITIES[name] : entity;
  });
}

/** As browsers do: NUL, surrogates and out-of-range numbers become U+FFFD instead of throwing. */
function fromCodePoint(codePoint: number): string {
  const invalid = codePoint === 0 || codePoint > 0x10ffff || (codePoint >= 0xd800 && codePoint <= 0xdfff);
  return invalid ? REPLACEMENT_CHARACTER : String.fromCodePoint(codePoint);
}
