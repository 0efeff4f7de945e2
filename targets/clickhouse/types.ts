// The ONE type mapping table of the ClickHouse target: SqlType → ClickHouse column type.
// ClickHouse allows Nullable(...) only around scalars; composites lose their NULL (see `lostNullability`).
import type { SqlType } from '../../src/plan/ir.ts';
import type { ScalarTypeName } from '../../src/types/sql-type.ts';
import { assertNever } from '../../src/util/assert-never.ts';
import { ident } from './sql-text.ts';

/** Scalars whose mapping takes no parameter. */
export const SCALAR_TYPES: Readonly<Record<ScalarTypeName, string>> = {
  boolean: 'Bool',
  int: 'Int32',
  bigint: 'Int64',
  float: 'Float32',
  double: 'Float64',
  string: 'String',
  // ClickHouse String is a byte string: BYTES fits without loss.
  bytes: 'String',
  // Date32 covers 1900..2299 like the runtime's date range; Date (UInt16 days) stops at 2149.
  date: 'Date32',
};

/** Time zone of every DateTime64: TIMESTAMP is read as UTC and TIMESTAMP_LTZ is an instant (LANGUAGE.md). */
export const TIME_ZONE = 'UTC';

/** The ClickHouse type of a column or expression of type `t`. */
export function chType(t: SqlType): string {
  const base = chBaseType(t);
  return t.nullable && allowsNullable(t) ? `Nullable(${base})` : base;
}

/** The ClickHouse type of `t` ignoring its nullability (map keys, Nullable-free contexts). */
export function chBaseType(t: SqlType): string {
  switch (t.kind) {
    case 'boolean':
    case 'int':
    case 'bigint':
    case 'float':
    case 'double':
    case 'string':
    case 'bytes':
    case 'date':
      return SCALAR_TYPES[t.kind];
    case 'decimal':
      return `Decimal(${t.precision}, ${t.scale})`;
    case 'timestamp':
      return `DateTime64(${t.precision}, '${TIME_ZONE}')`;
    case 'array':
      return `Array(${chType(t.element)})`;
    case 'map':
      // Map keys cannot be Nullable in ClickHouse.
      return `Map(${chBaseType(t.key)}, ${chType(t.value)})`;
    case 'row':
      return `Tuple(${t.fields.map((f) => `${ident(f.name)} ${chType(f.type)}`).join(', ')})`;
    case 'interval':
      // Intervals are carried as milliseconds (IR literal convention).
      return 'Int64';
    case 'null':
      return 'Nothing';
    default:
      return assertNever(t);
  }
}

/** Whether ClickHouse accepts Nullable(...) around this type. */
export function allowsNullable(t: SqlType): boolean {
  return t.kind !== 'array' && t.kind !== 'map' && t.kind !== 'row' && t.kind !== 'null';
}

/** Paths (column, field, element) where a nullable composite type had to drop its NULL. */
export function lostNullability(t: SqlType, path: string): string[] {
  const here = t.nullable && !allowsNullable(t) && t.kind !== 'null' ? [path] : [];
  switch (t.kind) {
    case 'array':
      return [...here, ...lostNullability(t.element, `${path}[]`)];
    case 'map':
      return [...here, ...(t.key.nullable ? [`${path} key`] : []), ...lostNullability(t.value, `${path}{}`)];
    case 'row':
      return [...here, ...t.fields.flatMap((f) => lostNullability(f.type, `${path}.${f.name}`))];
    default:
      return here;
  }
}
