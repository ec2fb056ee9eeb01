const twoDigits = (value: number) => (value < 10 ? `0${value}` : `${value}`);
const threeDigits = (value: number) => (value < 10 ? `00${value}` : value < 100 ? `0${value}` : `${value}`);

/**
 * `date.toISOString()`, written in JavaScript for the lists' rows: V8 formats toISOString through
 * `vfprintf`, and a 500-row page writes 2,000 to 3,000 timestamps, about 7 % of the active list's
 * API CPU (docs/performance.md, "Rotations and renewals not deployed"). Years outside 1000 to 9999,
 * which toISOString writes in another form, and invalid dates, which it refuses, go to it.
 */
export function isoTimestamp(date: Date): string {
  const year = date.getUTCFullYear();
  if (!(year >= 1000 && year <= 9999)) return date.toISOString();
  return (
    `${year}-${twoDigits(date.getUTCMonth() + 1)}-${twoDigits(date.getUTCDate())}` +
    `T${twoDigits(date.getUTCHours())}:${twoDigits(date.getUTCMinutes())}:${twoDigits(date.getUTCSeconds())}` +
    `.${threeDigits(date.getUTCMilliseconds())}Z`
  );
}
