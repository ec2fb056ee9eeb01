/**
 * The API answers a refused body with one sentence per problem, each starting with the field it
 * names ("port must not be greater than 65535"). A form shows each sentence next to its field and
 * the rest above its buttons, as the API wrote them.
 */
export interface Problems<F extends string> {
  byField: Partial<Record<F, string>>;
  general: string | null;
}

export function noProblems<F extends string>(): Problems<F> {
  return { byField: {}, general: null };
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
