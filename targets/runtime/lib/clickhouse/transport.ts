// How the ClickHouse sink talks to a server: the HTTP transport on @clickhouse/client, behind a
// small interface so the same sink logic can be checked against an embedded modern engine.
import { ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import { Readable } from 'node:stream';
import { linesBody, type ChColumn } from './encode.ts';
import type { ClickHouseConnection } from './at-start.ts';

export interface ChTransport {
  /** Server version ('18.16.1', '26.9.0', ...). */
  version(): Promise<string>;
  hasSetting(name: string): Promise<boolean>;
  columns(database: string, table: string): Promise<ChColumn[]>;
  /** The table's engine and CREATE statement (system.tables), or null when it does not exist. */
  tableDefinition(database: string, table: string): Promise<{ engine: string; createQuery: string } | null>;
  /** Server-wide MergeTree defaults (system.merge_tree_settings) among `names`; absent names are unknown settings. */
  mergeTreeSettings(names: readonly string[]): Promise<Record<string, string>>;
  /** One INSERT of JSONEachRow lines (each without the newline) with query-level settings. */
  insert(database: string, table: string, lines: readonly string[], settings: Record<string, string>): Promise<void>;
  close(): Promise<void>;
}

const ident = (s: string): string => '`' + s.replace(/`/g, '\\`') + '`';
const lit = (s: string): string => "'" + s.replace(/\\/g, '\\\\').replace(/'/g, "\\'") + "'";

export class HttpTransport implements ChTransport {
  private readonly client: ClickHouseClient;

  constructor(o: ClickHouseConnection) {
    this.client = createClient({
      url: o.url,
      username: o.username,
      password: o.password,
      // Lines arrive encoded per the table's types (exact decimals, BigInt as text).
      json: { parse: JSON.parse, stringify: (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v)) },
      request_timeout: 30_000,
      // Retries are the sink's (with its deduplication token), not the HTTP agent's.
      keep_alive: { enabled: true },
      // The sink reports failures itself, with the batch and the attempts made.
      log: { level: ClickHouseLogLevel.OFF },
    });
  }

  private async rows<T>(query: string): Promise<T[]> {
    const rs = await this.client.query({ query, format: 'JSONEachRow' });
    return (await rs.json()) as T[];
  }

  async version(): Promise<string> {
    return (await this.rows<{ v: string }>('SELECT version() AS v'))[0]!.v;
  }

  async hasSetting(name: string): Promise<boolean> {
    // No query parameters: 18.16 does not parse them.
    return (await this.rows<{ n: string | number }>(`SELECT count() AS n FROM system.settings WHERE name = ${lit(name)}`)).map((r) => Number(r.n))[0]! > 0;
  }

  async columns(database: string, table: string): Promise<ChColumn[]> {
    // system.columns has no `position` on 18.16; system.columns in table order works on every version.
    const exists = await this.rows<{ n: string | number }>(`SELECT count() AS n FROM system.tables WHERE database = ${lit(database)} AND name = ${lit(table)}`);
    if (Number(exists[0]!.n) === 0) return [];
    return (await this.rows<ChColumn>(`DESCRIBE TABLE ${ident(database)}.${ident(table)}`)).map((c) => ({ name: c.name, type: c.type }));
  }

  async tableDefinition(database: string, table: string): Promise<{ engine: string; createQuery: string } | null> {
    // engine and create_table_query exist in system.tables since 18.x.
    const got = await this.rows<{ engine: string; create_table_query: string }>(
      `SELECT engine, create_table_query FROM system.tables WHERE database = ${lit(database)} AND name = ${lit(table)}`,
    );
    return got.length === 0 ? null : { engine: got[0]!.engine, createQuery: got[0]!.create_table_query };
  }

  async mergeTreeSettings(names: readonly string[]): Promise<Record<string, string>> {
    if (names.length === 0) return {};
    const got = await this.rows<{ name: string; value: string }>(`SELECT name, value FROM system.merge_tree_settings WHERE name IN (${names.map(lit).join(', ')})`);
    return Object.fromEntries(got.map((r) => [r.name, String(r.value)]));
  }

  async insert(database: string, table: string, lines: readonly string[], settings: Record<string, string>): Promise<void> {
    const body = linesBody(lines);
    if (body) {
      // BYTES: raw bytes in the body (not valid UTF-8 text, so not the client's string insert).
      const r = await this.client.exec({ query: `INSERT INTO ${ident(database)}.${ident(table)} FORMAT JSONEachRow`, values: Readable.from([body]), clickhouse_settings: settings as never });
      r.stream.resume();
      await new Promise<void>((resolve, reject) => r.stream.on('end', resolve).on('error', reject));
      return;
    }
    await this.client.insert({ table: `${ident(database)}.${ident(table)}`, values: lines as string[], format: 'JSONEachRow', clickhouse_settings: settings as never });
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
