import { TEMPLATE_VARIABLES, type EventType } from './event-types';
import { parseTemplate, PositionTracker, type SourcePosition, type TemplateSegment, type VariableSegment } from './parse-template';

export type TemplateField = 'subject' | 'body';

export interface TemplateProblem {
  field: TemplateField;
  /** Self-contained, one line, location included: `unknown variable .DaysLeft at line 2, column 5; known: ...`. */
  message: string;
  line: number;
  column: number;
}

/** RFC 5322's hard limit for one header line. */
const SUBJECT_MAX_LENGTH = 998;
const BODY_MAX_LENGTH = 100_000;

/** Syntax errors and unknown variables of both fields; empty when the template can be saved. */
export function validateTemplate(eventType: EventType, template: { subject: string; body: string }): TemplateProblem[] {
  const known = TEMPLATE_VARIABLES[eventType];
  return [
    ...fieldProblems('subject', template.subject, known, SUBJECT_MAX_LENGTH),
    ...fieldProblems('body', template.body, known, BODY_MAX_LENGTH),
  ];
}

/** The line the API answers for a problem: `body: unknown variable .DaysLeft at line 2, column 5; known: ...`. */
export function formatTemplateProblem(problem: TemplateProblem): string {
  return `${problem.field}: ${problem.message}`;
}

function fieldProblems(field: TemplateField, source: string, known: readonly string[], maxLength: number): TemplateProblem[] {
  const shape = [tooLong(source, maxLength), field === 'subject' ? lineBreak(source) : undefined];
  const parsed = parseTemplate(source);
  const inSourceOrder = [...parsed.errors, ...parsed.segments.filter(isVariable).flatMap((variable) => unknownVariable(variable, known))];
  inSourceOrder.sort((a, b) => a.line - b.line || a.column - b.column);
  return [...shape.filter((problem) => problem !== undefined), ...inSourceOrder].map((problem) => ({ field, ...problem }));
}

type Located = SourcePosition & { message: string };

function tooLong(source: string, maxLength: number): Located | undefined {
  if (source.length <= maxLength) return undefined;
  const position = new PositionTracker(source).at(maxLength);
  return { message: `is ${source.length} characters long; at most ${maxLength} are allowed`, ...position };
}

/** A line break in a subject would end the header and start another one. */
function lineBreak(source: string): Located | undefined {
  const offset = source.search(/[\r\n]/);
  if (offset === -1) return undefined;
  return { message: `must be one line: line break at column ${offset + 1}`, line: 1, column: offset + 1 };
}

function isVariable(segment: TemplateSegment): segment is VariableSegment {
  return segment.kind === 'variable';
}

function unknownVariable(variable: VariableSegment, known: readonly string[]): Located[] {
  if (known.includes(variable.name)) return [];
  const sameLetters = known.find((name) => name.toLowerCase() === variable.name.toLowerCase());
  const hint = sameLetters ? `did you mean .${sameLetters}?` : `known: ${known.join(', ')}`;
  const { line, column } = variable;
  return [{ message: `unknown variable .${variable.name} at line ${line}, column ${column}; ${hint}`, line, column }];
}
