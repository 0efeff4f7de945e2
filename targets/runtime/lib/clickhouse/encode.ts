// Row values (values.ts model) encoded as JSONEachRow text for the target table's ClickHouse
// column types: DateTime64 as 'YYYY-MM-DD HH:MM:SS.fff', DateTime to the second, Date as
// 'YYYY-MM-DD', Decimal as exact text (quoted on servers that read quoted decimals), BYTES
// (base64 text in the runtime) as the bytes themselves (see `bytesJson`).
import type { ColumnDef } from '../io/source-types.ts';
import type { Row } from '../ops/types.ts';
import { formatDecimal, formatTimestamp, type Int64 } from '../values.ts';
import { ClickHouseSinkError } from './at-start.ts';

export interface ChColumn {
  name: string;
  type: string;
}

type Enc = (v: unknown) => string;

/** `Nullable(T)` / `LowCardinality(T)` → `T`. */
export function baseType(t: string): string {
  let s = t.trim();
  for (;;) {
    const m = /^(?:Nullable|LowCardinality)\((.*)\)$/.exec(s);
    if (!m) return s;
    s = m[1]!.trim();
  }
}

const jsonText = (v: unknown): string => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x));

function intEnc(v: unknown): string {
  if (typeof v === 'bigint') return '"' + v.toString() + '"';
  if (typeof v === 'boolean') return v ? '1' : '0';
  return String(v);
}

function floatEnc(v: unknown): string {
  const n = typeof v === 'bigint' ? Number(v) : (v as number);
  // JSON has no NaN/Infinity; ClickHouse reads them as quoted text.
  return Number.isFinite(n) ? String(n) : n > 0 ? '"inf"' : n < 0 ? '"-inf"' : '"nan"';
}

/**
 * A BYTES value (base64 text) as a JSON string holding its bytes. ClickHouse stores a JSON
 * string's bytes as they arrive (no UTF-8 check), but a `\u00XX` escape becomes the UTF-8 of
 * U+00XX, so bytes 0x80–0xFF must reach the server raw. The line stays plain ASCII text (it is
 * hashed into tokens and written to interval files): those bytes are written as `\u0080`–`\u00ff`
 * escapes, which JSON.stringify never produces (it writes U+0080–U+00FF literally), and
 * `linesBody` turns exactly those escapes into raw bytes when the batch is sent.
 */
export function bytesJson(base64: string): string {
  const b = Buffer.from(base64, 'base64');
  let s = '"';
  for (const x of b) {
    if (x === 0x22) s += '\\"';
    else if (x === 0x5c) s += '\\\\';
    else if (x >= 0x20 && x < 0x7f) s += String.fromCharCode(x);
    else s += '\\u00' + x.toString(16).padStart(2, '0');
  }
  return s + '"';
}

/** A raw-byte escape of `bytesJson` (0x80–0xFF), or an escaped backslash (skipped over). */
const RAW_ESCAPE = /\\(?:\\|u00([89a-f][0-9a-f]))/g;

/**
 * The HTTP body of a batch of lines, or null when no line holds a raw-byte escape (the lines
 * are sent as text then): UTF-8 of the lines with each `\u0080`–`\u00ff` escape as its byte.
 */
export function linesBody(lines: readonly string[]): Buffer | null {
  const raw = (l: string): boolean => l.includes('\\u00') && [...l.matchAll(RAW_ESCAPE)].some((m) => m[1] !== undefined);
  if (!lines.some(raw)) return null;
  const parts: Buffer[] = [];
  for (const line of lines) {
    let at = 0;
    for (const m of line.matchAll(RAW_ESCAPE)) {
      if (m[1] === undefined) continue;
      parts.push(Buffer.from(line.slice(at, m.index), 'utf8'), Buffer.of(parseInt(m[1], 16)));
      at = m.index + m[0].length;
    }
    parts.push(Buffer.from(line.slice(at) + '\n', 'utf8'));
  }
  return Buffer.concat(parts);
}

/** Epoch days or epoch ms → 'YYYY-MM-DD'. */
function dateText(v: unknown, fromKind: string): string {
  const ms = fromKind === 'date' ? (v as number) * 86400000 : (v as number);
  return formatTimestamp(ms).slice(0, 10);
}

export interface EncodeEnv {
  /** Servers before 19.x refuse a quoted Decimal in JSONEachRow; exact unquoted text works there. */
  quoteDecimals: boolean;
  /**
   * NULL in a non-Nullable column is written as the type's default (0, '', epoch): deleted
   * rows of a changelog may hold only their key, and ClickHouse never reads the other values.
   */
  nullAsDefault?: boolean;
}

/** JSONEachRow text of a non-Nullable ClickHouse type's default value. */
function defaultText(chType: string): string {
  const nullable = /^(LowCardinality\()?Nullable\(/.test(chType.trim());
  if (nullable) return 'null';
  const t = baseType(chType);
  if (/^DateTime/.test(t)) return '"1970-01-01 00:00:00"';
  if (/^Date/.test(t)) return '"1970-01-01"';
  if (/^(String|FixedString|UUID)/.test(t)) return /^UUID/.test(t) ? '"00000000-0000-0000-0000-000000000000"' : '""';
  if (/^(U?Int|Float|Decimal|Bool)/.test(t)) return '0';
  return 'null';
}

function encoderFor(col: ColumnDef, ch: ChColumn, env: EncodeEnv): Enc {
  const t = baseType(ch.type);
  if (/^DateTime64/.test(t)) {
    if (col.kind === 'date') return (v) => '"' + formatTimestamp((v as number) * 86400000) + '"';
    return (v) => '"' + formatTimestamp(v as number) + '"';
  }
  if (/^DateTime\b/.test(t)) {
    if (col.kind === 'date') return (v) => '"' + formatTimestamp((v as number) * 86400000).slice(0, 19) + '"';
    return (v) => '"' + formatTimestamp(v as number).slice(0, 19) + '"';
  }
  if (/^Date(32)?$/.test(t)) return (v) => '"' + dateText(v, col.kind) + '"';
  if (/^Decimal/.test(t)) {
    if (col.kind === 'decimal') {
      const scale = col.scale ?? 0;
      return env.quoteDecimals ? (v) => '"' + formatDecimal(v as Int64, scale) + '"' : (v) => formatDecimal(v as Int64, scale);
    }
    return env.quoteDecimals ? (v) => '"' + String(v) + '"' : (v) => String(v);
  }
  if (/^U?Int\d+$/.test(t) || t === 'Bool') {
    if (col.kind === 'decimal') return (v) => formatDecimal(v as Int64, col.scale ?? 0).replace(/\..*$/, '');
    return intEnc;
  }
  if (/^Float/.test(t)) {
    if (col.kind === 'decimal') return (v) => formatDecimal(v as Int64, col.scale ?? 0);
    return floatEnc;
  }
  if (/^(String|FixedString|Enum|UUID)/.test(t)) {
    if (col.kind === 'timestamp') return (v) => '"' + formatTimestamp(v as number) + '"';
    if (col.kind === 'decimal') return (v) => '"' + formatDecimal(v as Int64, col.scale ?? 0) + '"';
    if (col.kind === 'bytes' && /^(String|FixedString)/.test(t)) return (v) => bytesJson(v as string);
    return (v) => (typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(jsonText(v)));
  }
  return jsonText;
}

/** Builds the line encoder of a sink for the table's columns; every sink column must exist in the table. */
export function rowEncoder(columns: readonly ColumnDef[], table: readonly ChColumn[], env: EncodeEnv, where: string): (row: Row) => string {
  const byName = new Map(table.map((c) => [c.name, c]));
  const missing = columns.filter((c) => !byName.has(c.name)).map((c) => c.name);
  if (missing.length > 0) throw new ClickHouseSinkError(`${where}: the table has no column ${missing.map((m) => `'${m}'`).join(', ')} (it has ${table.map((c) => c.name).join(', ')})`);
  const encs = columns.map((c) => encoderFor(c, byName.get(c.name)!, env));
  const keys = columns.map((c) => JSON.stringify(c.name) + ':');
  const nulls = columns.map((c) => (env.nullAsDefault ? defaultText(byName.get(c.name)!.type) : 'null'));
  return (row) => {
    let s = '{';
    for (let i = 0; i < encs.length; i++) {
      const v = row[i];
      s += (i === 0 ? '' : ',') + keys[i] + (v === null || v === undefined ? nulls[i] : encs[i]!(v));
    }
    return s + '}';
  };
}
