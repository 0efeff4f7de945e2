// The `sql` catalog: the JDBC-catalog table layout (`iceberg_tables`, `iceberg_namespace_properties`)
// that Java's JdbcCatalog and pyiceberg's SqlCatalog share, in SQLite or PostgreSQL. A commit
// writes a new metadata file, then swaps the pointer with
// `UPDATE ... WHERE metadata_location = <base>`: zero rows updated means another writer won.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Catalog, CommitOutcome, LoadedTable, TableIdent } from './catalog.ts';
import { metadataFileName, versionOf } from './catalog.ts';
import { parseMetadataJson, stringifyMetadataJson, type TableMetadata } from '../metadata-json.ts';
import { readBytes, remove, toLocation, toPath, writeFileAtomic } from '../file-io.ts';

/** The few SQL operations the catalog needs, over SQLite or PostgreSQL. */
interface SqlDriver {
  exec(sql: string): Promise<void>;
  query(sql: string, params: unknown[]): Promise<Record<string, unknown>[]>;
  /** Returns the number of rows changed. */
  run(sql: string, params: unknown[]): Promise<number>;
  close(): Promise<void>;
}

const DDL = [
  `CREATE TABLE IF NOT EXISTS iceberg_tables (
     catalog_name VARCHAR(255) NOT NULL,
     table_namespace VARCHAR(255) NOT NULL,
     table_name VARCHAR(255) NOT NULL,
     metadata_location VARCHAR(1000),
     previous_metadata_location VARCHAR(1000),
     iceberg_type VARCHAR(5),
     PRIMARY KEY (catalog_name, table_namespace, table_name))`,
  `CREATE TABLE IF NOT EXISTS iceberg_namespace_properties (
     catalog_name VARCHAR(255) NOT NULL,
     namespace VARCHAR(255) NOT NULL,
     property_key VARCHAR(255) NOT NULL,
     property_value VARCHAR(1000) NOT NULL,
     PRIMARY KEY (catalog_name, namespace, property_key))`,
];

async function sqliteDriver(path: string): Promise<SqlDriver> {
  // Native: loaded only here, and kept out of bundles (it must be installed where they run).
  let Database: typeof import('better-sqlite3');
  try {
    Database = (await import('better-sqlite3')).default;
  } catch {
    throw new Error(`a SQLite catalog needs the better-sqlite3 package, which cannot be loaded here (install it next to the pipeline: npm install better-sqlite3)`);
  }
  const db = new Database(path);
  db.pragma('busy_timeout = 5000');
  // One SQL text serves both databases: PostgreSQL's `$N` become better-sqlite3's named `@pN`.
  const named = (sql: string): string => sql.replace(/\$(\d+)/g, '@p$1');
  const bind = (params: unknown[]): Record<string, unknown> => Object.fromEntries(params.map((v, i) => [`p${i + 1}`, v]));
  return {
    exec: async (sql) => void db.exec(sql),
    query: async (sql, params) => db.prepare(named(sql)).all(bind(params)) as Record<string, unknown>[],
    run: async (sql, params) => db.prepare(named(sql)).run(bind(params)).changes,
    close: async () => void db.close(),
  };
}

async function postgresDriver(uri: string): Promise<SqlDriver> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: uri.replace(/^postgresql\+\w+:/, 'postgresql:') });
  await client.connect();
  return {
    exec: async (sql) => void (await client.query(sql)),
    query: async (sql, params) => (await client.query(sql, params)).rows,
    run: async (sql, params) => (await client.query(sql, params)).rowCount ?? 0,
    close: async () => void (await client.end()),
  };
}

export class SqlCatalog implements Catalog {
  private constructor(
    readonly name: string,
    private readonly warehouse: string,
    private readonly db: SqlDriver,
  ) {}

  /** `uri`: `sqlite:///abs/path.db` (or `sqlite:////abs/path.db`) or `postgresql://user@host:port/db`. */
  static async open(name: string, uri: string, warehouse: string): Promise<SqlCatalog> {
    const sqlite = /^sqlite:\/\/\/+(.*)$/.exec(uri);
    const db = sqlite ? await sqliteDriver(`/${sqlite[1]}`) : await postgresDriver(uri);
    for (const ddl of DDL) await db.exec(ddl);
    return new SqlCatalog(name, warehouse, db);
  }

  defaultLocation(t: TableIdent): string {
    return toLocation(join(toPath(this.warehouse), ...t.namespace, t.name));
  }

  async load(t: TableIdent): Promise<LoadedTable | null> {
    const rows = await this.db.query(
      'SELECT metadata_location FROM iceberg_tables WHERE catalog_name = $1 AND table_namespace = $2 AND table_name = $3',
      [this.name, t.namespace.join('.'), t.name],
    );
    const loc = rows[0]?.metadata_location as string | undefined;
    if (!loc) return null;
    return { metadata: parseMetadataJson(readBytes(loc).toString('utf8')), metadataLocation: loc };
  }

  private writeMetadata(next: TableMetadata, version: number): string {
    const loc = `${next.location.replace(/\/+$/, '')}/metadata/${metadataFileName(version, randomUUID())}`;
    writeFileAtomic(loc, stringifyMetadataJson(next));
    return loc;
  }

  async create(t: TableIdent, metadata: TableMetadata): Promise<CommitOutcome> {
    const ns = t.namespace.join('.');
    await this.db.run(
      `INSERT INTO iceberg_namespace_properties (catalog_name, namespace, property_key, property_value) VALUES ($1, $2, 'exists', 'true') ON CONFLICT DO NOTHING`,
      [this.name, ns],
    );
    const loc = this.writeMetadata(metadata, 0);
    try {
      await this.db.run(
        `INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, metadata_location, previous_metadata_location, iceberg_type) VALUES ($1, $2, $3, $4, NULL, 'TABLE')`,
        [this.name, ns, t.name, loc],
      );
    } catch {
      remove(loc);
      return { ok: false, reason: 'conflict' };
    }
    return { ok: true, table: { metadata, metadataLocation: loc } };
  }

  async commit(t: TableIdent, base: LoadedTable, next: TableMetadata): Promise<CommitOutcome> {
    const loc = this.writeMetadata(next, versionOf(base.metadataLocation) + 1);
    const changed = await this.db.run(
      `UPDATE iceberg_tables SET metadata_location = $1, previous_metadata_location = $2
        WHERE catalog_name = $3 AND table_namespace = $4 AND table_name = $5 AND metadata_location = $2`,
      [loc, base.metadataLocation, this.name, t.namespace.join('.'), t.name],
    );
    if (changed !== 1) {
      remove(loc);
      return { ok: false, reason: 'conflict' };
    }
    return { ok: true, table: { metadata: next, metadataLocation: loc } };
  }

  close(): Promise<void> {
    return this.db.close();
  }
}
