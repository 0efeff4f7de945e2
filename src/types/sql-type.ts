// The SQL type model of the language (LANGUAGE.md "Types"). Schema sources map into it and
// targets map out of it, each through one table of its own. Plain data: it is part of the IR.
import { assertNever } from '../util/assert-never.ts';

export type ScalarTypeName = 'boolean' | 'int' | 'bigint' | 'float' | 'double' | 'string' | 'bytes' | 'date';

export type SqlType =
  | { kind: ScalarTypeName; nullable: boolean }
  | { kind: 'decimal'; precision: number; scale: number; nullable: boolean }
  /** TIMESTAMP(p) (no zone, read as UTC) and TIMESTAMP_LTZ(p) (an instant). */
  | { kind: 'timestamp'; precision: number; ltz: boolean; nullable: boolean }
  | { kind: 'array'; element: SqlType; nullable: boolean }
  | { kind: 'map'; key: SqlType; value: SqlType; nullable: boolean }
  | { kind: 'row'; fields: RowField[]; nullable: boolean }
  /** Only inside expressions: an INTERVAL literal or difference of timestamps. */
  | { kind: 'interval'; nullable: boolean }
  /** Only inside expressions: the type of the NULL literal before unification. */
  | { kind: 'null'; nullable: true };

export interface RowField {
  name: string;
  type: SqlType;
}

export type SqlTypeKind = SqlType['kind'];

export const T = {
  boolean: (nullable = true): SqlType => ({ kind: 'boolean', nullable }),
  int: (nullable = true): SqlType => ({ kind: 'int', nullable }),
  bigint: (nullable = true): SqlType => ({ kind: 'bigint', nullable }),
  float: (nullable = true): SqlType => ({ kind: 'float', nullable }),
  double: (nullable = true): SqlType => ({ kind: 'double', nullable }),
  string: (nullable = true): SqlType => ({ kind: 'string', nullable }),
  bytes: (nullable = true): SqlType => ({ kind: 'bytes', nullable }),
  date: (nullable = true): SqlType => ({ kind: 'date', nullable }),
  decimal: (precision: number, scale: number, nullable = true): SqlType => ({ kind: 'decimal', precision, scale, nullable }),
  timestamp: (precision = 3, nullable = true): SqlType => ({ kind: 'timestamp', precision, ltz: false, nullable }),
  timestampLtz: (precision = 3, nullable = true): SqlType => ({ kind: 'timestamp', precision, ltz: true, nullable }),
  array: (element: SqlType, nullable = true): SqlType => ({ kind: 'array', element, nullable }),
  map: (key: SqlType, value: SqlType, nullable = true): SqlType => ({ kind: 'map', key, value, nullable }),
  row: (fields: RowField[], nullable = true): SqlType => ({ kind: 'row', fields, nullable }),
  interval: (nullable = false): SqlType => ({ kind: 'interval', nullable }),
  null: (): SqlType => ({ kind: 'null', nullable: true }),
};

export function withNullable(t: SqlType, nullable: boolean): SqlType {
  if (t.kind === 'null') return t;
  return { ...t, nullable } as SqlType;
}

/** The type as written in `.pipe.sql`, e.g. `DECIMAL(12, 2) NOT NULL`. */
export function formatSqlType(t: SqlType, withNullability = true): string {
  const nn = withNullability && !t.nullable ? ' NOT NULL' : '';
  return formatBase(t) + nn;
}

function formatBase(t: SqlType): string {
  switch (t.kind) {
    case 'boolean':
      return 'BOOLEAN';
    case 'int':
      return 'INT';
    case 'bigint':
      return 'BIGINT';
    case 'float':
      return 'FLOAT';
    case 'double':
      return 'DOUBLE';
    case 'string':
      return 'STRING';
    case 'bytes':
      return 'BYTES';
    case 'date':
      return 'DATE';
    case 'decimal':
      return `DECIMAL(${t.precision}, ${t.scale})`;
    case 'timestamp':
      return `${t.ltz ? 'TIMESTAMP_LTZ' : 'TIMESTAMP'}(${t.precision})`;
    case 'array':
      return `ARRAY<${formatSqlType(t.element)}>`;
    case 'map':
      return `MAP<${formatSqlType(t.key)}, ${formatSqlType(t.value)}>`;
    case 'row':
      return `ROW<${t.fields.map((f) => `${quoteIdentIfNeeded(f.name)} ${formatSqlType(f.type)}`).join(', ')}>`;
    case 'interval':
      return 'INTERVAL';
    case 'null':
      return 'NULL';
    default:
      return assertNever(t);
  }
}

/** Identifiers are case-insensitive; names that are not plain words print "quoted". */
export function quoteIdentIfNeeded(name: string): string {
  return /^[a-z_][a-z0-9_]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`;
}

/**
 * Structural equality. `ignoreNull` ignores nullability at every depth; `foldFieldNames`
 * compares ROW field names case-insensitively, as unquoted column names compare.
 */
export function sameType(a: SqlType, b: SqlType, ignoreNull = false, foldFieldNames = false): boolean {
  if (a.kind !== b.kind) return false;
  if (!ignoreNull && a.nullable !== b.nullable) return false;
  const same = (x: SqlType, y: SqlType): boolean => sameType(x, y, ignoreNull, foldFieldNames);
  const fieldName = (n: string): string => (foldFieldNames ? n.toLowerCase() : n);
  switch (a.kind) {
    case 'decimal':
      return b.kind === 'decimal' && a.precision === b.precision && a.scale === b.scale;
    case 'timestamp':
      return b.kind === 'timestamp' && a.precision === b.precision && a.ltz === b.ltz;
    case 'array':
      return b.kind === 'array' && same(a.element, b.element);
    case 'map':
      return b.kind === 'map' && same(a.key, b.key) && same(a.value, b.value);
    case 'row':
      return (
        b.kind === 'row' &&
        a.fields.length === b.fields.length &&
        a.fields.every((f, i) => fieldName(f.name) === fieldName(b.fields[i]!.name) && same(f.type, b.fields[i]!.type))
      );
    case 'boolean':
    case 'int':
    case 'bigint':
    case 'float':
    case 'double':
    case 'string':
    case 'bytes':
    case 'date':
    case 'interval':
    case 'null':
      return true;
    default:
      return assertNever(a);
  }
}

export const isNumeric = (t: SqlType): boolean =>
  t.kind === 'int' || t.kind === 'bigint' || t.kind === 'float' || t.kind === 'double' || t.kind === 'decimal';
export const isTemporal = (t: SqlType): boolean => t.kind === 'timestamp' || t.kind === 'date';
