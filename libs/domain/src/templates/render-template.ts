import { escapeHtml } from './escape-html';
import type { TemplateValues } from './event-types';
import { htmlToText } from './html-to-text';
import { parseTemplate, type TemplateSegment, type VariableSegment } from './parse-template';
import type { TemplateField } from './validate-template';

export interface RenderedMessage {
  subject: string;
  /** Null for a body written as plain text: the message is then sent as text only, line for line. */
  html: string | null;
  text: string;
}

export class TemplateRenderError extends Error {
  override readonly name = 'TemplateRenderError';
}

/** Supplies a variable's value; `field` and the segment's position are there for error messages. */
export type ValueLookup = (variable: VariableSegment, field: TemplateField) => string;

/** Far below the 998 the header allows: long enough for any real subject, short enough for any inbox. */
const SUBJECT_MAX_LENGTH = 250;
/** C0 and C1 controls, DEL and the Unicode line separators: none belongs in a header. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point.
const HEADER_UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/**
 * Renders a saved template for sending. Throws TemplateRenderError when it does not parse or a
 * variable has no value, so the caller can log it and fall back to the default.
 */
export function renderTemplate(template: { subject: string; body: string }, values: TemplateValues): RenderedMessage {
  return renderWith(template, strictLookup(values));
}

/** Shared by renderTemplate and the plain-text fallback, which differ only in how values are found. */
export function renderWith(template: { subject: string; body: string }, lookup: ValueLookup): RenderedMessage {
  const subjectSegments = parseOrThrow('subject', template.subject);
  const body = parseOrThrow('body', template.body);
  const subject = toHeaderSafeSubject(interpolate(subjectSegments, (variable) => lookup(variable, 'subject')));
  // A body without markup was written as text: HTML would fold its line breaks into spaces.
  if (!isMarkup(body)) return { subject, html: null, text: interpolate(body, (variable) => lookup(variable, 'body')) };
  const html = interpolate(body, (variable) => escapeHtml(lookup(variable, 'body')));
  return {
    subject,
    html,
    // From the escaped HTML: decoding the entities gives every value back exactly, while a value
    // inserted raw would lose anything that looks like a tag (`<script>`) to the tag stripper.
    text: htmlToText(html),
  };
}

/** One line, no control characters, trimmed and capped: a value can never start a new header. */
export function toHeaderSafeSubject(subject: string): string {
  const oneLine = subject.replace(HEADER_UNSAFE, ' ').replace(/\s+/g, ' ').trim();
  if (oneLine.length <= SUBJECT_MAX_LENGTH) return oneLine;
  let cut = SUBJECT_MAX_LENGTH - 1;
  // Do not split a surrogate pair.
  if (isHighSurrogate(oneLine.charCodeAt(cut - 1))) cut--;
  return `${oneLine.slice(0, cut).trimEnd()}…`;
}

function isHighSurrogate(charCode: number): boolean {
  return charCode >= 0xd800 && charCode <= 0xdbff;
}

function strictLookup(values: TemplateValues): ValueLookup {
  return (variable, field) => {
    const value = ownValue(values, variable.name);
    if (value === undefined) {
      throw new TemplateRenderError(`no value for .${variable.name} (${field}, line ${variable.line}, column ${variable.column})`);
    }
    return value;
  };
}

/** Own string properties only: `{{ .constructor }}` must not find Object.prototype's. */
export function ownValue(values: TemplateValues, name: string): string | undefined {
  if (!Object.hasOwn(values, name)) return undefined;
  const value: unknown = values[name];
  return typeof value === 'string' ? value : undefined;
}

function parseOrThrow(field: TemplateField, source: string): TemplateSegment[] {
  const { segments, errors } = parseTemplate(source);
  if (errors.length > 0) {
    throw new TemplateRenderError(`${field} does not parse: ${errors.map((error) => error.message).join('; ')}`);
  }
  return segments;
}

/** An element tag, end tag, comment, doctype or character reference in the template's own text (values never count). */
const MARKUP = /<\/?[a-z][a-z0-9-]*(?:\s[^<>]*)?\/?>|<!--|<!doctype|&(?:[a-z][a-z0-9]*|#\d+|#x[0-9a-f]+);/i;

export function isMarkup(segments: TemplateSegment[]): boolean {
  return segments.some((segment) => segment.kind === 'text' && MARKUP.test(segment.text));
}

function interpolate(segments: TemplateSegment[], valueOf: (variable: VariableSegment) => string): string {
  return segments.map((segment) => (segment.kind === 'text' ? segment.text : valueOf(segment))).join('');
}
