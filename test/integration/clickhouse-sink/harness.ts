// Test harness for the ClickHouse sink: sink definitions, a query helper against the Debian
// 18.16 server, a chdb-backed transport (modern ClickHouse) that replays the sink's inserts, and
// a modern ClickHouse HTTP endpoint on chdb (chdb_http.py) for the real HTTP transport.
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { createClient } from '@clickhouse/client';
import { ensureVenv, venvPython } from '../../support/venv.ts';
import type { ColumnDef } from '../../../targets/runtime/lib/io/source-types.ts';
import type { SinkDef } from '../../../targets/runtime/lib/io/sinks.ts';
import type { ChColumn } from '../../../targets/runtime/lib/clickhouse/encode.ts';
import type { ChTransport } from '../../../targets/runtime/lib/clickhouse/transport.ts';
import { sinkConfigOf } from '../../support/resolved-config.ts';

export const col = (name: string, kind: string, extra: Partial<ColumnDef> = {}): ColumnDef => ({ name, kind, nullable: true, ...extra });

export function sinkDef(name: string, options: Record<string, string>, columns: ColumnDef[]): SinkDef {
  return { id: name, name, connector: 'clickhouse', options, config: sinkConfigOf('clickhouse', name, options), columns, json: () => '', cells: () => [] };
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

  async tableDefinition(): Promise<null> {
    return null;
  }

  async mergeTreeSettings(): Promise<Record<string, string>> {
    return {};
  }

  async insert(database: string, table: string, lines: readonly string[], settings: Record<string, string>): Promise<void> {
    const s = Object.entries(settings).map(([k, v]) => `${k} = ${lit(v)}`);
    if (settings.insert_deduplication_token) this.tokens.push(settings.insert_deduplication_token);
    const names = this.cols.map((c) => `${c.name} ${c.type}`).join(', ');
    this.statements.push(`INSERT INTO ${database}.${table} ${s.length ? 'SETTINGS ' + s.join(', ') + ' ' : ''}SELECT * FROM format(JSONEachRow, ${lit(names)}, ${lit(lines.join('\n'))})`);
  }

  async close(): Promise<void> {}
}

export interface ChdbServer {
  url: string;
  port: number;
  /** INSERTs the server executed (lost responses included). */
  inserts(): Promise<number>;
  /** The next `n` INSERTs are stored, then answered with a retryable error (a lost response). */
  loseInsertResponses(n: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts chdb_http.py on `dataDir` (a later server on the same dir sees the same tables); `port`:
 * the port of an earlier server (a restart keeps the URL, which checkpoints fingerprint).
 */
export async function startChdbServer(dataDir: string, port?: number): Promise<ChdbServer> {
  await ensureVenv();
  const args = [path.join(import.meta.dirname, 'chdb_http.py'), dataDir, ...(port === undefined ? [] : [String(port)])];
  const child = spawn(venvPython, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => (stderr = (stderr + b.toString()).slice(-4000)));
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  const listening = await new Promise<number>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.once('line', (l) => resolve(Number(/^PORT (\d+)$/.exec(l)?.[1] ?? NaN)));
    child.once('exit', (code) => reject(new Error(`chdb_http.py exited (${code}) before listening:\n${stderr}`)));
  });
  const url = `http://127.0.0.1:${listening}`;
  return {
    url,
    port: listening,
    inserts: async () => ((await (await fetch(`${url}/stats`)).json()) as { inserts: number }).inserts,
    loseInsertResponses: async (n) => {
      await fetch(`${url}/control`, { method: 'POST', body: JSON.stringify({ lose_insert_responses: n }) });
    },
    close: async () => {
      child.stdin.end();
      await exited;
    },
  };
}
