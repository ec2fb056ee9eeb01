// The template language is deliberately tiny: literal text and `{{ .Variable }}`. Anything Go's
// text/template would accept beyond that (pipes, functions, conditionals, trim markers) is a
// syntax error here, so a template that saves is a template that renders.

export interface SourcePosition {
  /** 1-based. */
  line: number;
  /** 1-based, in UTF-16 code units (what browser editors report). */
  column: number;
}

export interface TextSegment {
  kind: 'text';
  text: string;
}

export interface VariableSegment extends SourcePosition {
  kind: 'variable';
  name: string;
}

export type TemplateSegment = TextSegment | VariableSegment;

export interface TemplateSyntaxError extends SourcePosition {
  message: string;
}

/** `segments` is only meaningful when `errors` is empty. */
export interface ParsedTemplate {
  segments: TemplateSegment[];
  errors: TemplateSyntaxError[];
}

const OPEN = '{{';
const CLOSE = '}}';
const VARIABLE_REFERENCE = /^\.([A-Za-z_][A-Za-z0-9_]*)$/;
const BARE_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const QUOTED_EXPRESSION_MAX = 40;

/** Turns offsets into line/column in one forward pass, so a 100,000-character body stays linear. */
export class PositionTracker {
  private scanned = 0;
  private line = 1;
  private lineStart = 0;

  constructor(private readonly source: string) {}

  at(offset: number): SourcePosition {
    if (offset < this.scanned) this.rewind();
    for (; this.scanned < offset; this.scanned++) {
      if (this.source.charCodeAt(this.scanned) === 10) {
        this.line++;
        this.lineStart = this.scanned + 1;
      }
    }
    return { line: this.line, column: offset - this.lineStart + 1 };
  }

  private rewind(): void {
    this.scanned = 0;
    this.line = 1;
    this.lineStart = 0;
  }
}

/** Reports every syntax error it can find rather than stopping at the first. */
export function parseTemplate(source: string): ParsedTemplate {
  const positions = new PositionTracker(source);
  const segments: TemplateSegment[] = [];
  const errors: TemplateSyntaxError[] = [];
  const errorAt = (offset: number, message: string) => {
    const position = positions.at(offset);
    errors.push({ message: `${message} at line ${position.line}, column ${position.column}`, ...position });
  };

  let cursor = 0;
  while (cursor < source.length) {
    const open = source.indexOf(OPEN, cursor);
    if (open === -1) {
      pushText(segments, source.slice(cursor));
      break;
    }
    pushText(segments, source.slice(cursor, open));

    const close = source.indexOf(CLOSE, open + OPEN.length);
    const reopen = source.indexOf(OPEN, open + OPEN.length);
    if (close === -1 || (reopen !== -1 && reopen < close)) {
      errorAt(open, 'unclosed {{');
      if (close === -1) break;
      // The next `{{` may well be a good tag: carry on from there to report what follows.
      cursor = reopen;
      continue;
    }

    const inner = source.slice(open + OPEN.length, close);
    const expressionOffset = open + OPEN.length + (inner.length - inner.trimStart().length);
    const expression = inner.trim();
    const reading = readExpression(expression);
    if ('name' in reading) {
      segments.push({ kind: 'variable', name: reading.name, ...positions.at(expressionOffset) });
    } else {
      errorAt(expression === '' ? open : expressionOffset, reading.error);
    }
    cursor = close + CLOSE.length;
  }
  return { segments, errors };
}

function pushText(segments: TemplateSegment[], text: string): void {
  if (text !== '') segments.push({ kind: 'text', text });
}

function readExpression(expression: string): { name: string } | { error: string } {
  const reference = VARIABLE_REFERENCE.exec(expression);
  if (reference) return { name: reference[1] };
  if (expression === '') return { error: 'empty {{ }}; write {{ .Variable }}' };
  if (expression === '.') return { error: 'missing variable name after the dot in {{ . }}' };
  if (BARE_IDENTIFIER.test(expression)) return { error: `missing dot in {{ ${expression} }}; write {{ .${expression} }}` };
  return {
    error: `unsupported expression "${quoteForMessage(expression)}"; only {{ .Variable }} is supported (no pipes, functions or conditionals)`,
  };
}

/** Problem messages are one line each: fold whitespace and cut what the author typed. */
function quoteForMessage(expression: string): string {
  const oneLine = expression.replace(/\s+/g, ' ');
  return oneLine.length <= QUOTED_EXPRESSION_MAX ? oneLine : `${oneLine.slice(0, QUOTED_EXPRESSION_MAX - 1)}…`;
}
