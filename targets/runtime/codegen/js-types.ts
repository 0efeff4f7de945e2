// How each SQL type is represented in generated JavaScript, and the code that reads it from
// raw records, converts between types and formats it for output (LANGUAGE.md "Values").
import type { SqlType } from '../../../src/plan/ir.ts';

/** The JS domain of a SQL type: plain numbers, hybrid 64-bit integers, scaled decimals, ... */
export type Domain = 'num' | 'i64' | 'dec' | 'str' | 'bool' | 'any';

export function domainOf(t: SqlType): Domain {
  switch (t.kind) {
    case 'int':
    case 'float':
    case 'double':
    case 'date':
    case 'timestamp':
    case 'interval':
      return 'num';
    case 'bigint':
      return 'i64';
    case 'decimal':
      return 'dec';
    case 'string':
    case 'bytes':
      return 'str';
    case 'boolean':
      return 'bool';
    default:
      return 'any';
  }
}

export const scaleOf = (t: SqlType): number => (t.kind === 'decimal' ? t.scale : 0);

/** Reader call turning a raw JSON/CSV/Parquet value into the internal value (or rt.BAD). */
export function readerCall(t: SqlType, v: string): string {
  switch (t.kind) {
    case 'boolean':
      return `rt.readBoolean(${v})`;
    case 'int':
      return `rt.readInt(${v})`;
    case 'bigint':
      return `rt.readBigint(${v})`;
    case 'float':
      return `rt.readFloat(${v})`;
    case 'double':
      return `rt.readDouble(${v})`;
    case 'decimal':
      return `rt.readDecimal(${v}, ${t.precision}, ${t.scale})`;
    case 'string':
      return `rt.readString(${v})`;
    case 'bytes':
      return `rt.readBytes(${v})`;
    case 'date':
      return `rt.readDate(${v})`;
    case 'timestamp':
      return `rt.readTimestamp(${v})`;
    case 'array':
    case 'map':
    case 'row':
    case 'interval':
    case 'null':
      return `rt.readJson(${v})`;
  }
}

/**
 * Reader code with the common case inlined (a JSON number of the right shape), falling back to
 * the library reader for text, other shapes and errors. `tmp` is a scratch variable name.
 */
export function fastReaderCode(t: SqlType, v: string, tmp: string): string {
  switch (t.kind) {
    case 'timestamp':
      // Within JavaScript's Date range (±8.64e15 ms), else the reader says BAD.
      return `(Number.isInteger(${v}) && ${v} <= 8.64e15 && ${v} >= -8.64e15 ? ${v} : ${readerCall(t, v)})`;
    case 'bigint':
      return `(Number.isSafeInteger(${v}) ? ${v} : ${readerCall(t, v)})`;
    case 'int':
      // `typeof` first: `| 0` of an object calls its toString (a deeply nested array overflows the stack).
      return `(typeof ${v} === 'number' && ${v} === (${v} | 0) ? ${v} : ${readerCall(t, v)})`;
    case 'double':
      return `(typeof ${v} === 'number' ? ${v} : ${readerCall(t, v)})`;
    case 'decimal': {
      // Scaled by 10^s, a number with at most s fraction digits is within rounding noise of an
      // integer; the bound keeps it inside DECIMAL(p, s) and inside exact double range.
      const bound = Math.min(10 ** Math.min(t.precision, 15), 1e15);
      return `(typeof ${v} === 'number' && Math.abs(${tmp} = ${v} * ${10 ** t.scale}) < ${bound} && Math.abs(${tmp} - Math.round(${tmp})) < 1e-6 ? Math.round(${tmp}) + 0 : ${readerCall(t, v)})`;
    }
    default:
      return readerCall(t, v);
  }
}

/** A short description of what a column accepts, for dead-letter reasons. */
export function expectText(t: SqlType): string {
  switch (t.kind) {
    case 'timestamp':
      return `expected ${t.ltz ? 'TIMESTAMP_LTZ' : 'TIMESTAMP'}: an ISO-8601 or 'YYYY-MM-DD HH:MM:SS[.fff]' string or epoch milliseconds`;
    case 'decimal':
      return `expected DECIMAL(${t.precision}, ${t.scale}): a number or numeric string with at most ${t.precision - t.scale} integer digits`;
    case 'bigint':
      return 'expected BIGINT: an integer within 64 bits (beyond 2^53 a JSON number loses digits: write it as a string)';
    case 'int':
      return 'expected INT: an integer within 32 bits';
    default:
      return `expected ${t.kind.toUpperCase()}`;
  }
}

/** Code of a JSON value text for a non-null value `v` of type t. */
export function jsonValueCode(t: SqlType, v: string): string {
  switch (t.kind) {
    case 'boolean':
      return `(${v} ? 'true' : 'false')`;
    case 'int':
      return `String(${v})`;
    case 'float':
    case 'double':
      return `rt.jsonDouble(${v})`;
    case 'bigint':
      return `rt.jsonInt64(${v})`;
    case 'decimal':
      return `'"' + rt.formatDecimal(${v}, ${t.scale}) + '"'`;
    case 'timestamp':
      return t.ltz ? `'"' + rt.formatTimestampLtz(${v}) + '"'` : `'"' + rt.formatTimestamp(${v}) + '"'`;
    case 'date':
      return `'"' + rt.formatDate(${v}) + '"'`;
    case 'string':
    case 'bytes':
      return `JSON.stringify(${v})`;
    case 'interval':
      return `String(${v})`;
    case 'array':
    case 'map':
    case 'row':
    case 'null':
      return `rt.jsonAny(${v})`;
  }
}

/** Code of the display text of a non-null value (table output, CAST to STRING). */
export function textValueCode(t: SqlType, v: string): string {
  switch (t.kind) {
    case 'boolean':
      return `(${v} ? 'true' : 'false')`;
    case 'int':
    case 'bigint':
    case 'interval':
      return `String(${v})`;
    case 'float':
    case 'double':
      return `String(${v})`;
    case 'decimal':
      return `rt.formatDecimal(${v}, ${t.scale})`;
    case 'timestamp':
      return t.ltz ? `rt.formatTimestampLtz(${v})` : `rt.formatTimestamp(${v})`;
    case 'date':
      return `rt.formatDate(${v})`;
    case 'string':
    case 'bytes':
      return v;
    case 'array':
    case 'map':
    case 'row':
    case 'null':
      return `rt.jsonAny(${v})`;
  }
}

/**
 * Converts non-null value code `v` from type `from` to type `to` (numeric widening, decimal
 * rescaling, casts). Returns code that may evaluate to null when a CAST cannot succeed.
 */
export function convertCode(v: string, from: SqlType, to: SqlType): string {
  const df = domainOf(from);
  const dt = domainOf(to);
  if (from.kind === to.kind && (to.kind !== 'decimal' || scaleOf(from) === scaleOf(to))) return v;
  if (to.kind === 'string') return textValueCode(from, v);
  if (df === 'str') {
    // CAST from text: an unparseable value becomes NULL rather than failing the pipeline.
    return `rt.orNull(${readerCall(to, v)})`;
  }
  switch (dt) {
    case 'dec':
      if (df === 'dec') return `rt.rescale(${v}, ${scaleOf(from)}, ${scaleOf(to)})`;
      if (df === 'i64' || from.kind === 'int') return `rt.rescale(${v}, 0, ${scaleOf(to)})`;
      if (df === 'num') return `rt.numberToDecimal(${v}, ${scaleOf(to)})`;
      break;
    case 'i64':
      // A DECIMAL rounds toward zero and keeps the low 64 bits, a DOUBLE saturates (Flink's casts);
      // an INT is already a BIGINT value (no BigInt on that hot path).
      if (df === 'dec') return `rt.decimalToIntegral(${v}, ${scaleOf(from)})`;
      if (from.kind === 'int') return v;
      if (from.kind === 'float' || from.kind === 'double') return `rt.doubleToInt64(${v})`;
      if (df === 'num') return `rt.norm64(BigInt(Math.trunc(${v})))`;
      if (df === 'bool') return `(${v} ? 1 : 0)`;
      break;
    case 'num':
      // CAST to INT keeps the low 32 bits (Java's `(int)`); from a DOUBLE it saturates.
      if (df === 'dec') return to.kind === 'int' ? `rt.toInt32(rt.decimalToIntegral(${v}, ${scaleOf(from)}))` : `rt.decimalToNumber(${v}, ${scaleOf(from)})`;
      if (df === 'i64') return to.kind === 'int' ? `rt.toInt32(${v})` : `Number(${v})`;
      if (to.kind === 'int' && (from.kind === 'float' || from.kind === 'double')) return `rt.doubleToInt32(${v})`;
      if (to.kind === 'date' && from.kind === 'timestamp') return `Math.floor(${v} / 86400000)`;
      if (to.kind === 'timestamp' && from.kind === 'date') return `(${v} * 86400000)`;
      if (df === 'bool') return `(${v} ? 1 : 0)`;
      return v;
    case 'bool':
      if (df === 'num' || df === 'i64' || df === 'dec') return `(${v} != 0)`;
      break;
    default:
      return v;
  }
  return v;
}
