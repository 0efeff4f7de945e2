// Time units and interval literals: `INTERVAL '5' SECOND`, `INTERVAL '5 seconds'`, `'30 s'`.
// Month, quarter and year are not fixed-length: they get ms = 0 and the checker rejects them.
import type { TimeUnit } from '../ast.ts';

const UNIT_WORDS: Record<string, TimeUnit> = {
  ms: 'millisecond', msec: 'millisecond', msecs: 'millisecond', millisecond: 'millisecond', milliseconds: 'millisecond',
  s: 'second', sec: 'second', secs: 'second', second: 'second', seconds: 'second',
  m: 'minute', min: 'minute', mins: 'minute', minute: 'minute', minutes: 'minute',
  h: 'hour', hr: 'hour', hrs: 'hour', hour: 'hour', hours: 'hour',
  d: 'day', day: 'day', days: 'day',
  w: 'week', wk: 'week', week: 'week', weeks: 'week',
  mon: 'month', month: 'month', months: 'month',
  q: 'quarter', quarter: 'quarter', quarters: 'quarter',
  y: 'year', yr: 'year', year: 'year', years: 'year',
};

/** The keyword spellings (EXTRACT(unit FROM x), FLOOR(x TO unit)): full words, singular or plural. */
export function keywordTimeUnit(word: string): TimeUnit | null {
  const w = word.toLowerCase();
  const u = UNIT_WORDS[w];
  if (!u) return null;
  return w === u || w === `${u}s` ? u : null;
}

export const UNIT_MS: Record<TimeUnit, number> = {
  millisecond: 1,
  second: 1_000,
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
  week: 604_800_000,
  month: 0,
  quarter: 0,
  year: 0,
};

/** `'5'` with unit SECOND → 5000. Null when the text is not a number. */
export function intervalMs(text: string, unit: TimeUnit): number | null {
  if (!/^\s*-?\d+(?:\.\d+)?\s*$/.test(text)) return null;
  return Math.round(Number(text) * UNIT_MS[unit]);
}

/** `'5 seconds'`, `'30s'`, `'1 h'` → ms and unit; null when unreadable. */
export function parseDurationText(text: string): { ms: number; unit: TimeUnit } | null {
  const m = /^\s*(-?\d+(?:\.\d+)?)\s*([A-Za-z]+)\s*$/.exec(text);
  if (!m) return null;
  const unit = UNIT_WORDS[m[2]!.toLowerCase()];
  if (!unit) return null;
  return { ms: Math.round(Number(m[1]) * UNIT_MS[unit]), unit };
}
