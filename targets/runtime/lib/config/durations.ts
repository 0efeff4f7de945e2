// Duration units of LANGUAGE.md "Durations", once for the checker, the connector resolvers (which
// the runtime library ships) and the targets. Pure: no imports.

const DURATION_UNITS: Record<string, number> = {
  ms: 1, milli: 1, millis: 1, millisecond: 1, milliseconds: 1,
  s: 1000, sec: 1000, secs: 1000, second: 1000, seconds: 1000,
  m: 60_000, min: 60_000, mins: 60_000, minute: 60_000, minutes: 60_000,
  h: 3_600_000, hr: 3_600_000, hour: 3_600_000, hours: 3_600_000,
  d: 86_400_000, day: 86_400_000, days: 86_400_000,
  w: 604_800_000, week: 604_800_000, weeks: 604_800_000,
};

/** Milliseconds of one unit (`s`, `min`, `hours`, ... any case); undefined for an unknown unit. */
export const durationUnitMs = (unit: string): number | undefined =>
  Object.hasOwn(DURATION_UNITS, unit.toLowerCase()) ? DURATION_UNITS[unit.toLowerCase()] : undefined;

/** `'30 s'`, `'30s'`, `'5 min'`, `'100ms'` → number and unit; null when not of that shape. */
export function durationParts(text: string): { amount: number; unitMs: number } | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([A-Za-z]+)\s*$/.exec(text);
  const unitMs = m ? durationUnitMs(m[2]!) : undefined;
  return m && unitMs !== undefined ? { amount: Number(m[1]), unitMs } : null;
}
