// Type rules of expressions, following Flink SQL (LogicalTypeMerging): numeric promotion,
// DECIMAL precision/scale of arithmetic and aggregates, unification, comparability, CAST.
import { T, isNumeric, withNullable, type SqlType } from '../types/sql-type.ts';

export const MAX_DECIMAL_PRECISION = 38;
/** Flink keeps at least this many fractional digits when a DECIMAL result overflows 38 digits. */
const MIN_ADJUSTED_SCALE = 6;

type DecimalType = Extract<SqlType, { kind: 'decimal' }>;

/** Flink's adjustPrecisionScale: cap at 38 digits, giving up fractional digits down to 6. */
export function adjustDecimal(precision: number, scale: number, nullable: boolean): SqlType {
  if (precision <= MAX_DECIMAL_PRECISION) return T.decimal(precision, scale, nullable);
  const intDigits = precision - scale;
  const minScale = Math.min(scale, MIN_ADJUSTED_SCALE);
  const s = Math.max(MAX_DECIMAL_PRECISION - intDigits, minScale);
  return T.decimal(MAX_DECIMAL_PRECISION, s, nullable);
}

/** INT and BIGINT as the DECIMAL that holds every value: DECIMAL(10, 0) and DECIMAL(19, 0). */
export function asDecimal(t: SqlType): DecimalType | null {
  if (t.kind === 'decimal') return t;
  if (t.kind === 'int') return T.decimal(10, 0, t.nullable) as DecimalType;
  if (t.kind === 'bigint') return T.decimal(19, 0, t.nullable) as DecimalType;
  return null;
}

const nullableOf = (...ts: SqlType[]): boolean => ts.some((t) => t.nullable);

/**
 * The numeric type both operands are converted to before an operator applies:
 * INT < BIGINT < DECIMAL < FLOAT < DOUBLE; FLOAT with DECIMAL or DOUBLE gives DOUBLE.
 * For DECIMAL it is the common "wide enough" DECIMAL (used by comparison and unification).
 */
export function promoteNumeric(a: SqlType, b: SqlType): SqlType | null {
  if (!isNumeric(a) || !isNumeric(b)) return null;
  const n = nullableOf(a, b);
  if (a.kind === 'double' || b.kind === 'double') return T.double(n);
  if (a.kind === 'float' || b.kind === 'float') {
    const other = a.kind === 'float' ? b : a;
    return other.kind === 'decimal' ? T.double(n) : T.float(n);
  }
  if (a.kind === 'decimal' || b.kind === 'decimal') {
    const da = asDecimal(a)!;
    const db = asDecimal(b)!;
    const scale = Math.max(da.scale, db.scale);
    const intDigits = Math.max(da.precision - da.scale, db.precision - db.scale);
    return adjustDecimal(intDigits + scale, scale, n);
  }
  if (a.kind === 'bigint' || b.kind === 'bigint') return T.bigint(n);
  return T.int(n);
}

export type ArithOp = 'add' | 'sub' | 'mul' | 'div' | 'mod';

/** Result type of numeric arithmetic (Flink: findAddition/Multiplication/Division/ModuloDecimalType). */
export function arithmeticType(op: ArithOp, a: SqlType, b: SqlType): SqlType | null {
  const common = promoteNumeric(a, b);
  if (!common) return null;
  if (common.kind !== 'decimal') return common;
  const da = asDecimal(a)!;
  const db = asDecimal(b)!;
  const n = common.nullable;
  switch (op) {
    case 'add':
    case 'sub': {
      const scale = Math.max(da.scale, db.scale);
      return adjustDecimal(Math.max(da.precision - da.scale, db.precision - db.scale) + scale + 1, scale, n);
    }
    case 'mul':
      return adjustDecimal(da.precision + db.precision + 1, da.scale + db.scale, n);
    case 'div': {
      const scale = Math.max(MIN_ADJUSTED_SCALE, da.scale + db.precision + 1);
      return adjustDecimal(da.precision - da.scale + db.scale + scale, scale, n);
    }
    case 'mod': {
      const scale = Math.max(da.scale, db.scale);
      return adjustDecimal(Math.min(da.precision - da.scale, db.precision - db.scale) + scale, scale, n);
    }
  }
}

/** SUM: DECIMAL(p, s) → DECIMAL(38, s); other numerics keep their type (Flink). */
export function sumType(t: SqlType, nullable: boolean): SqlType {
  if (t.kind === 'decimal') return T.decimal(MAX_DECIMAL_PRECISION, t.scale, nullable);
  return withNullable(t, nullable);
}

/** AVG: DECIMAL(p, s) → DECIMAL(38, max(s, 6)); other numerics keep their type (Flink, so AVG of INT is INT). */
export function avgType(t: SqlType, nullable: boolean): SqlType {
  if (t.kind === 'decimal') return T.decimal(MAX_DECIMAL_PRECISION, Math.max(t.scale, MIN_ADJUSTED_SCALE), nullable);
  return withNullable(t, nullable);
}

/** The least restrictive type of two (CASE branches, COALESCE, IN lists, UNION ALL), or null. */
export function unify(a: SqlType, b: SqlType): SqlType | null {
  if (a.kind === 'null') return withNullable(b, true);
  if (b.kind === 'null') return withNullable(a, true);
  const n = nullableOf(a, b);
  if (isNumeric(a) && isNumeric(b)) return promoteNumeric(a, b);
  if (a.kind === 'timestamp' && b.kind === 'timestamp') {
    if (a.ltz !== b.ltz) return null;
    return { kind: 'timestamp', precision: Math.max(a.precision, b.precision), ltz: a.ltz, nullable: n };
  }
  if (a.kind === 'timestamp' && b.kind === 'date') return withNullable(a, n);
  if (a.kind === 'date' && b.kind === 'timestamp') return withNullable(b, n);
  if (a.kind === 'array' && b.kind === 'array') {
    const e = unify(a.element, b.element);
    return e ? T.array(e, n) : null;
  }
  if (a.kind === 'map' && b.kind === 'map') {
    const k = unify(a.key, b.key);
    const v = unify(a.value, b.value);
    return k && v ? T.map(k, v, n) : null;
  }
  if (a.kind === 'row' && b.kind === 'row') {
    if (a.fields.length !== b.fields.length) return null;
    const fields = [];
    for (let i = 0; i < a.fields.length; i++) {
      const t = unify(a.fields[i]!.type, b.fields[i]!.type);
      if (!t) return null;
      fields.push({ name: a.fields[i]!.name, type: t });
    }
    return T.row(fields, n);
  }
  if (a.kind === b.kind && a.kind !== 'interval') return withNullable(a, n);
  if (a.kind === 'interval' && b.kind === 'interval') return T.interval(n);
  return null;
}

/** Whether `=`, `<`, ... apply to the pair: numbers, strings, booleans, bytes, dates/timestamps of one zone kind. */
export function comparable(a: SqlType, b: SqlType, ordering: boolean): boolean {
  if (a.kind === 'null' || b.kind === 'null') return true;
  if (isNumeric(a) && isNumeric(b)) return true;
  if (a.kind === 'timestamp' && b.kind === 'timestamp') return a.ltz === b.ltz;
  if ((a.kind === 'date' && b.kind === 'timestamp') || (a.kind === 'timestamp' && b.kind === 'date')) return true;
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case 'string':
    case 'boolean':
    case 'bytes':
    case 'date':
    case 'interval':
      return true;
    default:
      // Composite values compare for equality only, element by element.
      return !ordering && unify(a, b) !== null;
  }
}

const SCALAR_CASTS: Record<string, readonly string[]> = {
  boolean: ['boolean', 'int', 'bigint', 'float', 'double', 'decimal', 'string'],
  int: ['boolean', 'int', 'bigint', 'float', 'double', 'decimal', 'string'],
  bigint: ['boolean', 'int', 'bigint', 'float', 'double', 'decimal', 'string', 'timestamp_ltz'],
  float: ['int', 'bigint', 'float', 'double', 'decimal', 'string'],
  double: ['int', 'bigint', 'float', 'double', 'decimal', 'string'],
  decimal: ['int', 'bigint', 'float', 'double', 'decimal', 'string'],
  string: ['boolean', 'int', 'bigint', 'float', 'double', 'decimal', 'string', 'bytes', 'date', 'timestamp', 'timestamp_ltz'],
  bytes: ['string', 'bytes'],
  date: ['string', 'date', 'timestamp', 'timestamp_ltz'],
  timestamp: ['string', 'date', 'timestamp', 'timestamp_ltz'],
  timestamp_ltz: ['string', 'date', 'timestamp', 'timestamp_ltz', 'bigint'],
  null: ['boolean', 'int', 'bigint', 'float', 'double', 'decimal', 'string', 'bytes', 'date', 'timestamp', 'timestamp_ltz', 'array', 'map', 'row'],
};

const castKey = (t: SqlType): string => (t.kind === 'timestamp' && t.ltz ? 'timestamp_ltz' : t.kind);

/** Whether CAST(from AS to) is valid, following Flink's cast matrix (simplified, see CONTEXT.md). */
export function castable(from: SqlType, to: SqlType): boolean {
  if (to.kind === 'null' || to.kind === 'interval') return false;
  if (from.kind === 'array' && to.kind === 'array') return castable(from.element, to.element);
  if (from.kind === 'map' && to.kind === 'map') return castable(from.key, to.key) && castable(from.value, to.value);
  if (from.kind === 'row' && to.kind === 'row')
    return from.fields.length === to.fields.length && from.fields.every((f, i) => castable(f.type, to.fields[i]!.type));
  return SCALAR_CASTS[castKey(from)]?.includes(castKey(to)) ?? false;
}
