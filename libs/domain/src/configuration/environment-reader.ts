/**
 * Reading configuration from environment variables, shared by the API and the scanner agent.
 *
 * A parser returns a typed result rather than a value or a sentinel string, so any value at all
 * (a password that starts with "!" included) is data, never mistaken for an error. Problems name
 * the variable and what is wrong with it, never its value: a secret must not reach a log.
 */
export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string };

export const accept = <T>(value: T): Parsed<T> => ({ ok: true, value });
export const refuse = (problem: string): Parsed<never> => ({ ok: false, problem });

export type Env = Readonly<Record<string, string | undefined>>;

/** Thrown with one line per bad variable, so an operator fixes them all in one go. */
export class ConfigurationError extends Error {
  constructor(
    readonly problems: string[],
    heading = 'Invalid configuration',
  ) {
    super(`${heading}:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigurationError';
  }
}

/**
 * Collects every problem before anything is reported. Unset and blank variables read as absent;
 * values are trimmed.
 */
export class EnvironmentReader {
  readonly problems: string[] = [];

  constructor(private readonly env: Env) {}

  /** The trimmed value, or undefined when unset or blank. */
  raw(name: string): string | undefined {
    const value = this.env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  }

  /** The parsed value, or `fallback` when unset; a bad value is recorded and `fallback` returned. */
  read<T>(name: string, parse: (raw: string) => Parsed<T>, fallback: T): T {
    const raw = this.raw(name);
    if (raw === undefined) return fallback;
    const parsed = parse(raw);
    if (parsed.ok) return parsed.value;
    this.problem(name, parsed.problem);
    return fallback;
  }

  /** Like `read`, for a variable that has no default: unset is a problem described by `required`. */
  require<T>(name: string, parse: (raw: string) => Parsed<T>, required: string): T | undefined {
    if (this.raw(name) === undefined) {
      this.problem(name, required);
      return undefined;
    }
    return this.read<T | undefined>(name, parse, undefined);
  }

  problem(name: string, problem: string): void {
    this.problems.push(`${name}: ${problem}`);
  }

  /** Throws the ConfigurationError listing every problem, if there is any. */
  finish(heading?: string): void {
    if (this.problems.length > 0) throw new ConfigurationError(this.problems, heading);
  }
}

// Parsers shared by both programs.

export function parseBoolean(raw: string): Parsed<boolean> {
  const normalised = raw.toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(normalised)) return accept(true);
  if (['false', '0', 'no', 'off'].includes(normalised)) return accept(false);
  return refuse('must be true or false');
}

/** A whole number from `min` to `max`, written as digits only. */
export function integerFrom(min: number, max: number, what = 'a whole number'): (raw: string) => Parsed<number> {
  return (raw) => {
    const value = Number(raw);
    return /^\d+$/.test(raw) && value >= min && value <= max ? accept(value) : refuse(`must be ${what} from ${min} to ${max}`);
  };
}

/** An absolute URL with one of `protocols` (e.g. ['http:', 'https:']). */
export function urlWith(protocols: readonly string[], what: string): (raw: string) => Parsed<string> {
  return (raw) => {
    if (!URL.canParse(raw)) return refuse(`must be ${what}`);
    return protocols.includes(new URL(raw).protocol) ? accept(raw) : refuse(`must be ${what}`);
  };
}

/** `90`, `90s`, `30m`, `12h` or `7d`, in seconds; null when it is not such a duration. */
export function durationInSeconds(raw: string): number | null {
  const match = /^(\d+)\s*([smhd]?)$/.exec(raw);
  if (!match) return null;
  const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[match[2] as '' | 's' | 'm' | 'h' | 'd'];
  return Number(match[1]) * unit;
}
