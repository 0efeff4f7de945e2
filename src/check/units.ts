// Durations, sizes and intervals as users write them in options (LANGUAGE.md "Durations").
// Sizes: KB/MB/GB/TB are decimal (10^3n), KiB/MiB/GiB/TiB binary (2^10n); see CONTEXT.md.
import type { IntervalLit } from '../syntax/ast.ts';
import { durationParts } from '../../targets/runtime/lib/config/durations.ts';


const SIZE_UNITS: Record<string, number> = {
  b: 1, byte: 1, bytes: 1,
  kb: 1e3, mb: 1e6, gb: 1e9, tb: 1e12,
  kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3, tib: 1024 ** 4,
};

const NUMBER_UNIT = /^\s*(\d+(?:\.\d+)?)\s*([A-Za-z]+)?\s*$/;

/** `'30 s'`, `'30s'`, `'5 min'`, `'1 h'`, `'7 d'`, `'100ms'` → milliseconds; null when malformed. A unit is required. */
export function parseDuration(text: string): number | null {
  const d = durationParts(text);
  if (!d) return null;
  const ms = d.amount * d.unitMs;
  return Number.isSafeInteger(ms) ? ms : null;
}

/** `'128 MB'` (10^6), `'1 GiB'` (2^30), `'4096'` (bytes) → bytes; null when malformed. */
export function parseSize(text: string): number | null {
  const m = NUMBER_UNIT.exec(text);
  if (!m) return null;
  const unit = m[2] === undefined ? 1 : SIZE_UNITS[m[2].toLowerCase()];
  if (unit === undefined) return null;
  const bytes = Number(m[1]) * unit;
  return Number.isSafeInteger(bytes) ? bytes : null;
}

/** Months, quarters and years have no fixed length in milliseconds, so windows and bounds can't use them. */
export function isCalendarInterval(iv: IntervalLit): boolean {
  if (iv.unit === 'month' || iv.unit === 'quarter' || iv.unit === 'year') return true;
  return iv.unit === null && /\b(month|months|quarter|quarters|year|years|mon|mons)\b/i.test(iv.text);
}

/** A readable form of a millisecond count for messages (`90000` → `1 min 30 s`). */
export function formatMs(ms: number): string {
  if (ms === 0) return '0 ms';
  const sign = ms < 0 ? '-' : '';
  let rest = Math.abs(ms);
  const parts: string[] = [];
  for (const [unit, size] of [['d', 86_400_000], ['h', 3_600_000], ['min', 60_000], ['s', 1000], ['ms', 1]] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)} ${unit}`);
      rest %= size;
    }
  }
  return sign + parts.join(' ');
}
