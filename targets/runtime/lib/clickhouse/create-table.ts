// The CREATE TABLE a ClickHouse sink would write into, for the message that says its table is
// missing: the sink's columns with the types its encoder writes (encode.ts), the sink's
// `order_by` / `partition_by` (as resolved in its config), and for a changelog sink the `_version` / `_is_deleted`
// columns of a ReplacingMergeTree. Types follow the server's version (18.x has neither
// DateTime64 nor Bool).
import type { ColumnDef } from '../io/source-types.ts';
import type { SinkDef } from '../io/sinks.ts';
import type { ClickHouseSinkConfig } from '../config/clickhouse/config.ts';

const ident = (name: string): string => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : '`' + name.replace(/\\/g, '\\\\').replace(/`/g, '\\`') + '`');

function chType(c: ColumnDef, major: number): string {
  const modern = major >= 20;
  let t: string;
  switch (c.kind) {
    case 'boolean':
      t = major >= 22 ? 'Bool' : 'UInt8';
      break;
    case 'tinyint':
      t = 'Int8';
      break;
    case 'smallint':
      t = 'Int16';
      break;
    case 'int':
      t = 'Int32';
      break;
    case 'bigint':
      t = 'Int64';
      break;
    case 'float':
      t = 'Float32';
      break;
    case 'double':
      t = 'Float64';
      break;
    case 'decimal':
      t = `Decimal(${c.precision ?? 38}, ${c.scale ?? 0})`;
      break;
    case 'date':
      t = 'Date';
      break;
    case 'timestamp':
    case 'timestamp_ltz':
      t = modern ? `DateTime64(${Math.min(c.precision ?? 3, 9)})` : 'DateTime';
      break;
    default:
      // Strings, bytes, times, and nested values (written as JSON text).
      t = 'String';
  }
  return c.nullable ? `Nullable(${t})` : t;
}

export function createTableSql(def: SinkDef, config: Pick<ClickHouseSinkConfig, 'orderBy' | 'partitionBy'>, database: string, table: string, serverVersion: string): string {
  const major = Number(serverVersion.split('.')[0]) || 0;
  const changelog = (def.changelog ?? 'append') !== 'append';
  const cols = def.columns.map((c) => `  ${ident(c.name)} ${chType(c, major)}`);
  const own = new Set(def.columns.map((c) => c.name));
  if (changelog && !own.has('_version')) cols.push('  _version UInt64');
  if (changelog && !own.has('_is_deleted')) cols.push('  _is_deleted UInt8');
  const key = config.orderBy ?? (changelog && def.upsertKey && def.upsertKey.length > 0 ? def.upsertKey.map(ident).join(', ') : null);
  const lines = [`CREATE TABLE ${ident(database)}.${ident(table)}`, '(', cols.join(',\n'), ')', changelog ? 'ENGINE = ReplacingMergeTree(_version)' : 'ENGINE = MergeTree'];
  if (config.partitionBy) lines.push(`PARTITION BY ${config.partitionBy}`);
  lines.push(`ORDER BY ${key === null ? 'tuple()' : `(${key})`}`);
  return lines.join('\n') + ';';
}
