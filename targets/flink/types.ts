// SqlType → Flink SQL type, one table: Flink's type system is the one pipec's language follows,
// so every type has an exact counterpart.
import { assertNever } from '../../src/util/assert-never.ts';
import type { SqlType } from '../../src/types/sql-type.ts';
import { ident } from './sql-text.ts';

export function flinkType(t: SqlType, withNullability = true): string {
  const nn = withNullability && !t.nullable ? ' NOT NULL' : '';
  return base(t) + nn;
}

function base(t: SqlType): string {
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
      return `ARRAY<${flinkType(t.element)}>`;
    case 'map':
      return `MAP<${flinkType(t.key)}, ${flinkType(t.value)}>`;
    case 'row':
      return `ROW<${t.fields.map((f) => `${ident(f.name)} ${flinkType(f.type)}`).join(', ')}>`;
    case 'interval':
      return 'INTERVAL SECOND(9, 3)';
    case 'null':
      return 'INT';
    default:
      return assertNever(t);
  }
}
