// Compares what a sink received with what a test expects and renders the difference as a
// table: one column per compared field, `-` for an expected row that did not come, `+` for a
// produced row that was not expected. Values compare by their text as the sink writes it,
// with numbers and timestamps normalized (12.5 = 12.50, '2026-01-01 00:01:00' = '…:00.000').
import { diffArrays } from 'diff';
import { formatTimestamp, readTimestamp } from '../../targets/runtime/lib/values.ts';

export type Row = Record<string, unknown>;

const NUMBER = /^-?\d+(\.\d+)?$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?Z?$/;

/** The text a value compares by. */
export function canon(v: unknown): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'number' || typeof v === 'bigint') return canonNumber(String(v));
  if (typeof v === 'string') {
    if (NUMBER.test(v)) return canonNumber(v);
    if (TIMESTAMP.test(v)) {
      const t = readTimestamp(v);
      if (typeof t === 'number') return formatTimestamp(t);
    }
    return v;
  }
  return JSON.stringify(v);
}

function canonNumber(s: string): string {
  if (!NUMBER.test(s)) return s;
  let [int, frac = ''] = s.split('.') as [string, string?];
  frac = frac.replace(/0+$/, '');
  const neg = int.startsWith('-');
  int = int.replace(/^-?0*(?=\d)/, '');
  const text = frac ? `${int}.${frac}` : int;
  return neg && text !== '0' ? `-${text}` : text;
}

export interface Comparison {
  ok: boolean;
  columns: string[];
  missing: Row[];
  unexpected: Row[];
  /** The rendered difference (empty when ok). */
  table: string;
}

/** Columns compared: those the expected rows name, else (no expected rows) those produced. */
export function comparedColumns(expected: Row[], observed: Row[]): string[] {
  const cols: string[] = [];
  for (const r of expected.length ? expected : observed) for (const k of Object.keys(r)) if (!cols.includes(k)) cols.push(k);
  return cols;
}

const keyOf = (r: Row, cols: string[]): string => JSON.stringify(cols.map((c) => canon(r[c])));

export function compareRows(expected: Row[], observed: Row[], order: 'set' | 'exact'): Comparison {
  const cols = comparedColumns(expected, observed);
  const ek = expected.map((r) => keyOf(r, cols));
  const ok_ = observed.map((r) => keyOf(r, cols));
  const lines: { mark: ' ' | '-' | '+'; row: Row }[] = [];
  const missing: Row[] = [];
  const unexpected: Row[] = [];
  if (order === 'exact') {
    let i = 0;
    let j = 0;
    for (const part of diffArrays(ek, ok_)) {
      for (let n = 0; n < part.count!; n++) {
        if (part.added) {
          unexpected.push(observed[j]!);
          lines.push({ mark: '+', row: observed[j++]! });
        } else if (part.removed) {
          missing.push(expected[i]!);
          lines.push({ mark: '-', row: expected[i++]! });
        } else {
          lines.push({ mark: ' ', row: observed[j++]! });
          i++;
        }
      }
    }
  } else {
    const left = new Map<string, number>();
    for (const k of ok_) left.set(k, (left.get(k) ?? 0) + 1);
    const matched = new Map<string, number>();
    expected.forEach((r, i) => {
      const n = left.get(ek[i]!) ?? 0;
      if (n > 0) {
        left.set(ek[i]!, n - 1);
        matched.set(ek[i]!, (matched.get(ek[i]!) ?? 0) + 1);
        lines.push({ mark: ' ', row: r });
      } else {
        missing.push(r);
        lines.push({ mark: '-', row: r });
      }
    });
    observed.forEach((r, j) => {
      const m = matched.get(ok_[j]!) ?? 0;
      if (m > 0) matched.set(ok_[j]!, m - 1);
      else {
        unexpected.push(r);
        lines.push({ mark: '+', row: r });
      }
    });
  }
  const ok = missing.length === 0 && unexpected.length === 0;
  return { ok, columns: cols, missing, unexpected, table: ok ? '' : renderTable(cols, lines) };
}

function renderTable(cols: string[], lines: { mark: string; row: Row }[]): string {
  const cells = lines.map((l) => cols.map((c) => (l.row[c] === undefined ? '' : canon(l.row[c]))));
  const width = cols.map((c, i) => Math.max(c.length, ...cells.map((r) => r[i]!.length)));
  const fmt = (mark: string, vs: string[]): string => `${mark} | ${vs.map((v, i) => v.padEnd(width[i]!)).join(' | ')} |`.trimEnd();
  const out = [fmt(' ', cols), `--+-${width.map((w) => '-'.repeat(w)).join('-+-')}-+`];
  lines.forEach((l, i) => out.push(fmt(l.mark, cells[i]!)));
  return out.join('\n');
}
