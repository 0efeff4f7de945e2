// DuckDB SQL text for `pipec query`'s views: quoting of names and paths, and the DuckDB type of
// each SQL type of the language (one table, as the other targets' type maps).
import { assertNever } from '../util/assert-never.ts';
import type { SqlType } from '../types/sql-type.ts';

/** A DuckDB identifier: always quoted, so any sink or column name is taken as written. */
export const quoteIdent = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/** A DuckDB string literal (paths, names in `columns = {...}`). */
export const quoteText = (text: string): string => `'${text.replaceAll("'", "''")}'`;

export function duckdbType(t: SqlType): string {
  switch (t.kind) {
    case 'boolean':
      return 'BOOLEAN';
    case 'int':
      return 'INTEGER';
    case 'bigint':
      return 'BIGINT';
    case 'float':
      return 'FLOAT';
    case 'double':
      return 'DOUBLE';
    case 'string':
      return 'VARCHAR';
    case 'bytes':
      return 'BLOB';
    case 'date':
      return 'DATE';
    case 'decimal':
      return `DECIMAL(${t.precision}, ${t.scale})`;
    case 'timestamp':
      return t.ltz ? 'TIMESTAMPTZ' : t.precision > 6 ? 'TIMESTAMP_NS' : 'TIMESTAMP';
    case 'array':
      return `${duckdbType(t.element)}[]`;
    case 'map':
      return `MAP(${duckdbType(t.key)}, ${duckdbType(t.value)})`;
    case 'row':
      return `STRUCT(${t.fields.map((f) => `${quoteIdent(f.name)} ${duckdbType(f.type)}`).join(', ')})`;
    case 'interval':
      return 'INTERVAL';
    case 'null':
      return 'INTEGER';
    default:
      return assertNever(t);
  }
}
