// Lexical helpers of the Flink SQL target: identifier quoting, string literals, comments and
// interval literals. Every name that reaches the script passes through `ident`, so no user name
// can end a statement or a quote.
import { displayText } from '../../src/util/unsafe-text.ts';

/**
 * A backtick-quoted Flink identifier (a backtick inside is doubled, as Flink's lexer reads it).
 * Flink SQL has no escape inside identifiers, so an unsafe character (a line terminator, a
 * control or bidi mark) is spelled `\uXXXX` — the same spelling everywhere in the script, and
 * reported as flink-name-escaped (a column so named no longer matches its JSON field).
 */
export const ident = (name: string): string => '`' + displayText(name).replaceAll('`', '``') + '`';

/** A single-quoted string literal: the quote doubled; unsafe characters spelled `\uXXXX` as in `ident`. */
export const str = (value: string): string => "'" + displayText(value).replaceAll("'", "''") + "'";

/** A `-- ` comment line: user text flattened to one line so it cannot end the comment early. */
export const comment = (text: string): string => '-- ' + displayText(text.replace(/[\r\n]+/g, ' '));

const UNITS: [string, number][] = [
  ['DAY', 86_400_000],
  ['HOUR', 3_600_000],
  ['MINUTE', 60_000],
  ['SECOND', 1000],
];

/**
 * An interval literal in the largest unit that divides it exactly: `INTERVAL '5' MINUTE`.
 * Calcite's default leading precision is 2 digits, so longer values say theirs (`SECOND(3)`);
 * sub-second values are fractional seconds (`INTERVAL '0.250' SECOND(1, 3)`).
 */
export function interval(ms: number): string {
  const sign = ms < 0 ? '-' : '';
  const abs = Math.abs(ms);
  for (const [unit, size] of UNITS) {
    if (abs % size === 0 && abs > 0) return withPrecision(sign, String(abs / size), unit);
  }
  if (abs === 0) return "INTERVAL '0' SECOND";
  const whole = Math.floor(abs / 1000);
  const text = `${whole}.${String(abs % 1000).padStart(3, '0')}`;
  return `INTERVAL '${sign}${text}' SECOND(${Math.max(1, String(whole).length)}, 3)`;
}

function withPrecision(sign: string, digits: string, unit: string): string {
  return digits.length > 2 ? `INTERVAL '${sign}${digits}' ${unit}(${digits.length})` : `INTERVAL '${sign}${digits}' ${unit}`;
}

/** A duration as Flink's configuration reads it (`30 s`, `250 ms`). */
export function configDuration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
