import type { LoggerService } from '@nestjs/common';
import type { LogLevel } from '../../config/environment';

const SEVERITY: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

// Nest announces every mapped route at start-up; useful when debugging, noise otherwise.
const CHATTY_CONTEXTS = new Set(['RoutesResolver', 'RouterExplorer', 'InstanceLoader', 'NestFactory']);

type Fields = Record<string, unknown>;

/**
 * Structured logs: one JSON object per line on stdout, `{ time, level, context, msg, ...fields }`.
 * Used for Nest's own messages too. Callers pass fields as the last argument:
 * `logger.log('alert sent', { context: 'Alerts', requestId })`.
 */
export class JsonLogger implements LoggerService {
  constructor(
    private readonly level: LogLevel = 'info',
    private readonly write: (line: string) => void = (line) => process.stdout.write(line),
  ) {}

  log(message: unknown, ...rest: unknown[]): void {
    const { context } = this.split(rest);
    this.emit(context !== undefined && CHATTY_CONTEXTS.has(context) ? 'debug' : 'info', message, rest);
  }

  error(message: unknown, ...rest: unknown[]): void {
    this.emit('error', message, rest);
  }

  warn(message: unknown, ...rest: unknown[]): void {
    this.emit('warn', message, rest);
  }

  debug(message: unknown, ...rest: unknown[]): void {
    this.emit('debug', message, rest);
  }

  verbose(message: unknown, ...rest: unknown[]): void {
    this.emit('debug', message, rest);
  }

  fatal(message: unknown, ...rest: unknown[]): void {
    this.emit('error', message, rest);
  }

  private emit(level: LogLevel, message: unknown, rest: unknown[]): void {
    if (SEVERITY[level] < SEVERITY[this.level]) return;
    const { context, fields, stack } = this.split(rest);
    const entry: Fields = { time: new Date().toISOString(), level, ...(context ? { context } : {}), msg: toText(message), ...fields };
    if (message instanceof Error && message.stack) entry.stack = message.stack;
    else if (stack) entry.stack = stack;
    this.write(`${JSON.stringify(entry)}\n`);
  }

  /** Nest passes `(message, stack?, context?)` for errors and `(message, context?)` otherwise. */
  private split(rest: unknown[]): { context?: string; fields: Fields; stack?: string } {
    const fields: Fields = {};
    const strings: string[] = [];
    for (const item of rest) {
      if (typeof item === 'string') strings.push(item);
      else if (item && typeof item === 'object') Object.assign(fields, item);
    }
    let context = typeof fields.context === 'string' ? fields.context : undefined;
    delete fields.context;
    if (strings.length > 0) context ??= strings.pop();
    const stack = strings.find((s) => s.includes('\n    at '));
    return { context, fields, stack };
  }
}

function toText(message: unknown): string {
  if (typeof message === 'string') return message;
  if (message instanceof Error) return message.message;
  return JSON.stringify(message);
}
