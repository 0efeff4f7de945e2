// PostgreSQL text-format values (pgoutput tuples and snapshot rows, both read as text) decoded
// per the table's catalog into the runtime's raw value model (LANGUAGE.md "Values"): numerics
// stay exact text for `readDecimal`, timestamps become epoch ms, dates epoch days.
import { norm64, readDecimal, type Int64 } from '../values.ts';
import type { ColumnDef } from '../io/source-types.ts';
import { META, meta } from '../io/source-types.ts';
import type { Row } from '../ops/types.ts';

/** One column of the table as the catalog describes it. */
export interface PgColumn {
  name: string;
  typeOid: number;
  /** Base type name (`int8`, `numeric`, `timestamptz`, ...; domains resolved). */
  typname: string;
  typmod: number;
  notNull: boolean;
  /** Element type for arrays (`typcategory = 'A'`); values stay PostgreSQL text. */
  isArray: boolean;
}

export type PgDecoder = (text: string) => unknown;

const TS = /^(\d{4,})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?(?:([+-])(\d{2})(?::?(\d{2}))?(?::?(\d{2}))?)?( BC)?$/;

const d2 = (s: string, i: number): number => (s.charCodeAt(i) - 48) * 10 + s.charCodeAt(i + 1) - 48;

/** Epoch ms of a `timestamp` (read as UTC) or `timestamptz` text (DateStyle ISO); ±Infinity kept. */
export function pgTimestamp(text: string): number {
  // Fast path for the common 'YYYY-MM-DD HH:MM:SS[.ffffff][±HH[:MM[:SS]]]' (years 1000-9999):
  // a stream of timestamps is parsed per row, the regex costs several times more.
  const n = text.length;
  if (n >= 19 && text.charCodeAt(4) === 45 && text.charCodeAt(10) === 32 && text.charCodeAt(0) !== 48 && text.charCodeAt(n - 1) !== 67 /* 'C' of BC */) {
    let t = Date.UTC(d2(text, 0) * 100 + d2(text, 2), d2(text, 5) - 1, d2(text, 8), d2(text, 11), d2(text, 14), d2(text, 17));
    let i = 19;
    if (text.charCodeAt(i) === 46) {
      i++;
      let ms = 0;
      let k = 0;
      for (let c = text.charCodeAt(i); c >= 48 && c <= 57; c = text.charCodeAt(++i), k++) if (k < 3) ms = ms * 10 + c - 48;
      for (; k < 3; k++) ms *= 10;
      t += ms;
    }
    if (i < n) {
      const sign = text.charCodeAt(i) === 45 ? -1 : 1;
      let off = d2(text, i + 1) * 3600;
      i += 3;
      if (text.charCodeAt(i) === 58) {
        off += d2(text, i + 1) * 60;
        i += 3;
      }
      if (text.charCodeAt(i) === 58) {
        off += d2(text, i + 1);
        i += 3;
      }
      t -= sign * off * 1000;
    }
    if (i === n && !Number.isNaN(t)) return t;
  }
  return pgTimestampSlow(text);
}

function pgTimestampSlow(text: string): number {
  if (text === 'infinity') return Infinity;
  if (text === '-infinity') return -Infinity;
  const m = TS.exec(text);
  if (!m) throw new Error(`unexpected timestamp text '${text}'`);
  let year = +m[1]!;
  if (m[12]) year = 1 - year;
  const d = new Date(0);
  d.setUTCFullYear(year, +m[2]! - 1, +m[3]!);
  d.setUTCHours(+m[4]!, +m[5]!, +m[6]!, m[7] ? Number(m[7].padEnd(6, '0').slice(0, 3)) : 0);
  let t = d.getTime();
  if (m[8]) {
    const off = (+m[9]! * 3600 + (m[10] ? +m[10] : 0) * 60 + (m[11] ? +m[11] : 0)) * 1000;
    t -= m[8] === '-' ? -off : off;
  }
  return t;
}

export function pgDate(text: string): number {
  if (text === 'infinity') return Infinity;
  if (text === '-infinity') return -Infinity;
  const m = /^(\d{4,})-(\d{2})-(\d{2})( BC)?$/.exec(text);
  if (!m) throw new Error(`unexpected date text '${text}'`);
  const d = new Date(0);
  d.setUTCFullYear(m[4] ? 1 - +m[1]! : +m[1]!, +m[2]! - 1, +m[3]!);
  return Math.round(d.getTime() / 86400000);
}

function pgBytea(text: string): Buffer {
  if (text.startsWith('\\x')) return Buffer.from(text.slice(2), 'hex');
  throw new Error('bytea must use bytea_output = hex');
}

function int64(text: string): Int64 {
  return norm64(BigInt(text));
}

/** The decoder of one column's text values. */
export function decoderFor(c: PgColumn): PgDecoder {
  if (c.isArray) return (t) => t;
  switch (c.typname) {
    case 'int2':
    case 'int4':
    case 'oid':
      return Number;
    case 'int8':
      return int64;
    case 'float4':
    case 'float8':
      // Number() reads 'NaN', 'Infinity' and '-Infinity' as PostgreSQL writes them.
      return Number;
    case 'numeric':
      // Exact: the text is handed to readDecimal, never through a binary double.
      return (t) => t;
    case 'bool':
      return (t) => t === 't';
    case 'timestamp':
    case 'timestamptz':
      return pgTimestamp;
    case 'date':
      return pgDate;
    case 'bytea':
      return pgBytea;
    default:
      // text, varchar, bpchar, uuid, json(b), time, interval, enums, ...: PostgreSQL's text.
      return (t) => t;
  }
}

/** NUMERIC(p, s) from its type modifier, or null when unconstrained. */
export function numericPrecision(typmod: number): { precision: number; scale: number } | null {
  if (typmod < 4) return null;
  const v = typmod - 4;
  return { precision: (v >> 16) & 0xffff, scale: v & 0xffff };
}

/** Builds the raw record the generated decoder (or `toRow`) reads. */
export function decodeTuple(cols: readonly PgColumn[], decs: readonly PgDecoder[], text: Record<string, string | null | undefined>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < cols.length; i++) {
    const name = cols[i]!.name;
    const t = text[name];
    out[name] = t === null || t === undefined ? null : decs[i]!(t);
  }
  return out;
}

export function decodeArray(cols: readonly PgColumn[], decs: readonly PgDecoder[], values: readonly (string | null)[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < cols.length; i++) {
    const t = values[i];
    out[cols[i]!.name] = t === null || t === undefined ? null : decs[i]!(t);
  }
  return out;
}

/**
 * The row for a source without a generated decoder: declared columns in order, DECIMAL as
 * scaled integers (values.ts), metadata columns (`op`, `lsn`, `before`, ...) from META.
 */
export function toRow(raw: Record<string, unknown>, columns: readonly ColumnDef[]): Row {
  return columns.map((c) => {
    if (c.meta !== undefined) return meta(raw, c.meta);
    const v = raw[c.name] ?? null;
    if (v !== null && c.kind === 'decimal') {
      const d = readDecimal(v, c.precision ?? 38, c.scale ?? 0);
      return typeof d === 'symbol' ? null : d;
    }
    return v;
  });
}

export { META };
