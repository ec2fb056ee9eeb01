export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type Log = (level: LogLevel, msg: string, fields?: Record<string, unknown>) => void;

/** Structured logs: one JSON object per line, like the API's. */
export const jsonLog: Log = (level, msg, fields = {}) => {
  if (level === 'debug' && process.env.LOG_LEVEL !== 'debug') return;
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), level, context: 'Scanner', msg, ...fields })}\n`);
};
