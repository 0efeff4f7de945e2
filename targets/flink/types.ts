// SqlType → Flink SQL type. pipec's type names are Flink's (LANGUAGE.md "Types"), so scalars
// print as the language writes them; composites differ only in quoting ROW field names, and the
// expression-only types (interval, null) get the Flink type of their values.
import { formatSqlType, type SqlType } from '../../src/types/sql-type.ts';
import { ident } from './sql-text.ts';

export function flinkType(t: SqlType, withNullability = true): string {
  const nn = withNullability && !t.nullable ? ' NOT NULL' : '';
  switch (t.kind) {
    case 'array':
      return `ARRAY<${flinkType(t.element)}>${nn}`;
    case 'map':
      return `MAP<${flinkType(t.key)}, ${flinkType(t.value)}>${nn}`;
    case 'row':
      return `ROW<${t.fields.map((f) => `${ident(f.name)} ${flinkType(f.type)}`).join(', ')}>${nn}`;
    case 'interval':
      return `INTERVAL SECOND(9, 3)${nn}`;
    case 'null':
      return 'INT';
    default:
      return formatSqlType(t, withNullability);
  }
}
