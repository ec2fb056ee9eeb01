/**
 * A form first checks what a person typed (ui/field-checks.ts) and shows every slip at once, next
 * to its field, without sending anything. The API answers a refused body with one sentence per
 * problem, each starting with the field it names ("port must not be greater than 65535"); a form
 * shows each of those next to its field and the rest above its buttons, as the API wrote them.
 */
export interface Problems<F extends string> {
  byField: Partial<Record<F, string>>;
  general: string | null;
}

export function noProblems<F extends string>(): Problems<F> {
  return { byField: {}, general: null };
}

/**
 * The problems a form found itself before sending, each field with its first sentence; null when
 * every check passed. A line above the buttons says that nothing was sent and how many to correct.
 */
export function checkedProblems<F extends string>(checks: Partial<Record<F, string | null | undefined>>): Problems<F> | null {
  const byField: Partial<Record<F, string>> = {};
  for (const [field, sentence] of Object.entries(checks) as [F, string | null | undefined][]) if (sentence) byField[field] = sentence;
  const count = Object.keys(byField).length;
  if (count === 0) return null;
  return {
    byField,
    general: count === 1 ? 'Nothing was sent: correct the marked field.' : `Nothing was sent: correct the ${count} marked fields.`,
  };
}

/** The first sentence of several checks of one field, or null when all passed. */
export function firstOf(...sentences: (string | null)[]): string | null {
  return sentences.find((sentence) => sentence !== null) ?? null;
}

/** Moves the focus to the first field with a sentence, once the form shows them, so a keyboard user lands on it. */
export function focusFirstProblem<F extends string>(idPrefix: string, problems: Problems<F>, order: readonly F[]): void {
  const first = order.find((field) => problems.byField[field] !== undefined);
  if (first === undefined) return;
  requestAnimationFrame(() => document.getElementById(`${idPrefix}-${first}`)?.focus());
}

/** Splits the API's answer between the fields its lines start with ("an", "the" and "each value in" allowed before). */
export function splitProblems<F extends string>(message: string, fields: readonly F[]): Problems<F> {
  const problems = noProblems<F>();
  for (const line of message.split('\n').map((text) => text.trim())) {
    if (line === '') continue;
    const field = fields.find((name) => new RegExp(`^(an? |the |each value in )?${escape(name)}\\b`, 'i').test(line));
    if (field) problems.byField[field] = [problems.byField[field], line].filter(Boolean).join(' ');
    else problems.general = [problems.general, line].filter(Boolean).join(' ');
  }
  return problems;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The id of a field's error sentence, for its input's aria-describedby. */
export function fieldErrorId(idPrefix: string, field: string): string {
  return `${idPrefix}-${field}-error`;
}

/** The attributes that tie an input to its sentence: its id, aria-describedby and aria-invalid. */
export function fieldProps<F extends string>(idPrefix: string, field: F, problems: Problems<F>) {
  const invalid = problems.byField[field] !== undefined;
  return {
    id: `${idPrefix}-${field}`,
    'aria-describedby': invalid ? fieldErrorId(idPrefix, field) : undefined,
    'aria-invalid': invalid ? true : undefined,
  };
}

/** A field's sentence, if the API named that field. */
export function FieldError<F extends string>({ idPrefix, field, problems }: { idPrefix: string; field: F; problems: Problems<F> }) {
  const message = problems.byField[field];
  if (!message) return null;
  return (
    <p className="error field-error" id={fieldErrorId(idPrefix, field)}>
      {message}
    </p>
  );
}

/** The sentences that name no field, above the form's buttons. */
export function GeneralProblem({ problems }: { problems: Problems<string> }) {
  if (!problems.general) return null;
  return (
    <p className="error" role="alert">
      {problems.general}
    </p>
  );
}
