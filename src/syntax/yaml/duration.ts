// Durations as YAML writes them (`5s`, `30 s`, `5 minutes`) ↔ the IntervalLit the SQL form
// produces. The compact `<n><ms|s|min|h|d>` spelling is the canonical one and maps to the
// unit form (`5s` ≡ `INTERVAL '5' SECOND`); other spellings keep their text (≡ `INTERVAL '5 seconds'`).
import type { IntervalLit, TimeUnit } from '../ast.ts';
import type { Span } from '../../diagnostics/span.ts';
import { parseDurationText, UNIT_MS } from '../sql/time-units.ts';

const ABBREV_UNIT: Record<string, TimeUnit> = { ms: 'millisecond', s: 'second', min: 'minute', h: 'hour', d: 'day' };
const UNIT_ABBREV: Partial<Record<TimeUnit, string>> = { millisecond: 'ms', second: 's', minute: 'min', hour: 'h', day: 'd' };
const NUMBER = /^-?\d+(?:\.\d+)?$/;

/**
 * Null when the text is not a duration at all. Like `INTERVAL '...'` in SQL, months, years and
 * negative lengths still parse; the checker rejects them for both forms alike.
 */
export function parseYamlDuration(raw: string, span: Span): IntervalLit | null {
  const text = raw.trim();
  const compact = /^(-?\d+(?:\.\d+)?)(ms|s|min|h|d)$/.exec(text);
  if (compact) {
    const unit = ABBREV_UNIT[compact[2]!]!;
    return { kind: 'interval', ms: Math.round(Number(compact[1]) * UNIT_MS[unit]), text: compact[1]!, unit, span };
  }
  const d = parseDurationText(text);
  if (!d) return null;
  return { kind: 'interval', ms: d.ms, text, unit: null, span };
}

/** The YAML spelling of an interval literal (the inverse of parseYamlDuration). */
export function formatYamlDuration(iv: IntervalLit): string {
  const text = iv.text.trim();
  if (iv.unit === null) return text;
  const abbrev = UNIT_ABBREV[iv.unit];
  if (abbrev && NUMBER.test(text)) return `${text}${abbrev}`;
  return `${text} ${iv.unit}`;
}
