// Test harness for the ClickHouse sink: sink definitions, a query helper against the Debian
// 18.16 server, and a chdb-backed transport (modern ClickHouse) that replays the sink's inserts.
import { createClient } from '@clickhouse/client';
import type { ColumnDef } from '../../../targets/runtime/lib/io/source-types.ts';
import type { SinkDef } from '../../../targets/runtime/lib/io/sinks.ts';
import type { ChColumn } from '../../../targets/runtime/lib/clickhouse/encode.ts';
import type { ChTransport } from '../../../targets/runtime/lib/clickhouse/transport.ts';

export const col = (name: string, kind: string, extra: Partial<ColumnDef> = {}): ColumnDef => ({ name, kind, nullable: true, ...extra });

export function sinkDef(name: string, options: Record<string, string>, columns: ColumnDef[]): SinkDef {
  return { id: name, name, connector: 'clickhouse', options, columns, json: () => '', cells: () => [] };
}

export function unique(prefix: string): string {
  return `${prefix}_${process.pid}_${Date.now().toString(36)}`;
}

export async function chQuery<T = Record<string, unknown>>(url: string, query: string): Promise<T[]> {
  const c = createClient({ url });
  try {
    const rs = await c.query({ query, format: 'JSONEachRow' });
    return (await rs.json()) as T[];
  } finally {
    await c.close();
  }
}

export async function chCommand(url: string, query: string): Promise<void> {
  const c = createClient({ url });
  try {
    await c.command({ query });
  } finally {
    await c.close();
  }
}

const lit = (s: string): string => "'" + s.replace(/\\/g, '\\\\').replace(/'/g, "\\'") + "'";

/**
 * Records the sink's inserts as `INSERT ... SETTINGS insert_deduplication_token ... SELECT FROM
 * format(JSONEachRow, ...)` statements; `script()` replays them after the DDL in one chdb session.
 */
export class ChdbTransport implements ChTransport {
  readonly statements: string[] = [];
  readonly tokens: string[] = [];

  constructor(private readonly cols: ChColumn[]) {}

  async version(): Promise<string> {
    return '26.9.0';
  }

  async hasSetting(name: string): Promise<boolean> {
    return name === 'insert_deduplication_token';
  }

  async columns(): Promise<ChColumn[]> {
    return this.cols;
  }

  async insert(database: string, table: string, lines: readonly string[], settings: Record<string, string>): Promise<void> {
    const s = Object.entries(settings).map(([k, v]) => `${k} = ${lit(v)}`);
    if (settings.insert_deduplication_token) this.tokens.push(settings.insert_deduplication_token);
    const names = this.cols.map((c) => `${c.name} ${c.type}`).join(', ');
    this.statements.push(`INSERT INTO ${database}.${table} ${s.length ? 'SETTINGS ' + s.join(', ') + ' ' : ''}SELECT * FROM format(JSONEachRow, ${lit(names)}, ${lit(lines.join('\n'))})`);
  }

  async close(): Promise<void> {}
}
