// What the code generator tells the runtime's Iceberg sink (`SinkDef.iceberg`): the table, the
// catalog with its option values resolved from the environment at run time, the metadata to
// create the table with when it is missing, and the sink's write settings.
import type { TableMetadata } from './writer/metadata-json.ts';

export type CatalogType = 'filesystem' | 'sql' | 'rest';

export interface IcebergSinkSpec {
  /** `namespace.table`. */
  table: string;
  /** Null when the plan names no declared catalog (the compiler reports that; kept for safety). */
  catalog: { name: string; type: CatalogType; options: Record<string, string> } | null;
  /**
   * Table metadata as the Iceberg target generates it (schema with field ids, partition spec,
   * sort order, properties); the location and table UUID are chosen when the table is created.
   * Its schema also says which Iceberg type each sink column has.
   */
  metadata: Pick<TableMetadata, 'schemas' | 'current-schema-id'> & Record<string, unknown>;
  formatVersion: 2 | 3;
  targetFileSizeBytes: number;
  commitIntervalMs: number;
  writeMode: 'copy-on-write' | 'merge-on-read';
  compression: string;
  /** The sink's input: `append` rows, or an `upsert`/`retract` changelog keyed by `upsertKey`. */
  changelog: 'append' | 'upsert' | 'retract';
  upsertKey: string[] | null;
}
