// The catalog contract the table writer commits through. A commit is a compare-and-swap of the
// table's current metadata location: it succeeds only if the table still points at `base`.
import type { TableMetadata } from '../metadata-json.ts';

export interface TableIdent {
  namespace: string[];
  name: string;
}

export interface LoadedTable {
  metadata: TableMetadata;
  metadataLocation: string;
}

export type CommitOutcome = { ok: true; table: LoadedTable } | { ok: false; reason: 'conflict' };

export interface Catalog {
  readonly name: string;
  /** Where a new table's files go, e.g. `file:///warehouse/ns/table`. */
  defaultLocation(t: TableIdent): string;
  load(t: TableIdent): Promise<LoadedTable | null>;
  /** Registers a new table; fails with 'conflict' when it already exists. */
  create(t: TableIdent, metadata: TableMetadata): Promise<CommitOutcome>;
  commit(t: TableIdent, base: LoadedTable, next: TableMetadata): Promise<CommitOutcome>;
  close(): Promise<void>;
}

export function identFromName(table: string): TableIdent {
  const parts = table.split('.');
  return { namespace: parts.slice(0, -1), name: parts[parts.length - 1]! };
}

/** Metadata file name per the Java/pyiceberg convention: `00003-<uuid>.metadata.json`. */
export function metadataFileName(version: number, uuid: string): string {
  return `${String(version).padStart(5, '0')}-${uuid}.metadata.json`;
}

export function versionOf(metadataLocation: string): number {
  const m = /\/(?:v)?(\d+)(?:-[0-9a-f-]+)?\.metadata\.json$/.exec(metadataLocation);
  return m ? Number(m[1]) : 0;
}
