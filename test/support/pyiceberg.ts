// Reads Iceberg tables through pyiceberg (the reference Python implementation) for tests, and writes small fixture
// tables. The work happens in test/support/python/pyiceberg-table.py in the project venv.
import { runPythonHelper } from './venv.ts';

/** A SQL catalog (SQLite file `sqlite:////abs/path.db` or PostgreSQL `postgresql+psycopg2://user@host:port/db`). */
export interface IcebergSqlCatalog {
  uri: string;
  /** Where new tables' files go, e.g. `file:///tmp/wh`; needed only to create tables. */
  warehouse?: string;
  /** Catalog name stored in the catalog tables (pyiceberg's `catalog_name` column); default `pipec`. */
  name?: string;
  properties?: Record<string, string>;
}

/** Where to read from: a table in a SQL catalog, or a metadata JSON file read as a StaticTable. */
export type IcebergSource = { catalog: IcebergSqlCatalog; table: string } | { metadata: string };

/** Iceberg-spec JSON objects (kebab-case keys, exactly as in metadata files). */
export type IcebergJson = Record<string, unknown>;

export interface IcebergTableDump {
  formatVersion: number;
  location: string;
  metadataLocation: string | null;
  properties: Record<string, string>;
  schema: IcebergJson & { fields: IcebergJson[] };
  partitionSpec: IcebergJson & { fields: IcebergJson[] };
  sortOrder: IcebergJson & { fields: IcebergJson[] };
  /** 64-bit ids beyond 2^53 arrive as decimal strings, like every such integer. */
  currentSnapshotId: number | string | null;
  snapshots: (IcebergJson & { summary?: Record<string, string> })[];
  /**
   * Rows of the current snapshot (or `snapshotId`) in scan order. Timestamps/dates as ISO 8601, decimals as strings,
   * binary as base64, integers beyond 2^53 as strings.
   */
  rows: Record<string, unknown>[];
}

interface Failure {
  ok: false;
  message: string;
  trace: string;
}

async function call<T>(request: Record<string, unknown>): Promise<T> {
  const out = (await runPythonHelper('pyiceberg-table.py', [], JSON.stringify(request))) as ({ ok: true } & T) | Failure;
  if (!out.ok) {
    throw new Error(`pyiceberg: ${out.message}\n${out.trace}`);
  }
  const { ok: _ok, ...rest } = out;
  return rest as T;
}

/** Loads the table with pyiceberg and returns its schema, spec, sort order, snapshots and rows. */
export function readIcebergTable(source: IcebergSource, options: { snapshotId?: number | string } = {}): Promise<IcebergTableDump> {
  return call<IcebergTableDump>({ op: 'read', ...source, ...options });
}

export interface IcebergWriteRequest {
  catalog: IcebergSqlCatalog;
  /** `namespace.name`; the namespace is created when missing, the table when missing. */
  table: string;
  /** Iceberg-spec JSON: `{ type: 'struct', 'schema-id': 0, fields: [{ id, name, type, required }] }`. */
  schema: IcebergJson;
  partitionSpec?: IcebergJson;
  sortOrder?: IcebergJson;
  properties?: Record<string, string>;
  /** Each batch is one pyiceberg append (one snapshot). Timestamps/decimals may be given as strings. */
  appends?: Record<string, unknown>[][];
}

/** Creates (if missing) and appends to a table with pyiceberg: the reference writer for fixtures. */
export function writeIcebergTable(request: IcebergWriteRequest): Promise<{ metadataLocation: string }> {
  return call<{ metadataLocation: string }>({ op: 'write', ...request });
}
