// What a reader must read of one Iceberg table at one snapshot: the live data files and, per data
// file, the row positions its position deletes and deletion vectors delete (`pipec query` hands
// both to DuckDB, which then needs no Iceberg extension). Equality deletes are refused: pipec
// never writes them, and applying them needs the delete schema's equality semantics.
import { openCatalog, type CatalogSpec } from '../runtime/lib/iceberg/writer/catalogs/open-catalog.ts';
import { identFromName } from '../runtime/lib/iceberg/writer/catalogs/catalog.ts';
import { readLiveFiles } from '../runtime/lib/iceberg/writer/live-files.ts';
import { CONTENT } from '../runtime/lib/iceberg/writer/manifests.ts';
import { currentSnapshot } from '../runtime/lib/iceberg/writer/snapshot.ts';
import { deletedPositions } from '../runtime/lib/iceberg/writer/table-writer.ts';
import { toPath } from '../runtime/lib/iceberg/writer/file-io.ts';
import type { SnapshotJson, TableMetadata } from '../runtime/lib/iceberg/writer/metadata-json.ts';

export interface TableScan {
  /** `catalog.namespace.table`, for messages. */
  table: string;
  /** null: the table has no snapshot yet (it is empty). */
  snapshotId: string | null;
  /** Local paths of the live data files, in manifest order. */
  dataFiles: string[];
  /** Deleted row positions (0-based, in file order) by data file path. */
  deleted: Map<string, number[]>;
}

export class TableScanError extends Error {}

/**
 * Scans `table` (`namespace.table`) of the catalog at the current snapshot, or at `snapshotId`.
 * Relative warehouse paths resolve against `baseDir`, as for `pipec run` and `pipec compact`.
 */
export async function scanIcebergTable(spec: CatalogSpec, table: string, baseDir: string, snapshotId: string | null): Promise<TableScan> {
  const name = `${spec.name}.${table}`;
  const catalog = await openCatalog(spec, baseDir);
  try {
    const loaded = await catalog.load(identFromName(table));
    if (!loaded) throw new TableScanError(`table ${name} does not exist yet (the pipeline creates it on its first commit)`);
    const snap = pickSnapshot(loaded.metadata, snapshotId, name);
    if (!snap) return { table: name, snapshotId: null, dataFiles: [], deleted: new Map() };
    const live = await readLiveFiles(loaded.metadata, snap);
    const data = live.entries.filter((e) => e.entry.dataFile.content === CONTENT.DATA);
    if (live.entries.some((e) => e.entry.dataFile.content === CONTENT.EQUALITY_DELETES)) {
      throw new TableScanError(`table ${name} has equality delete files, which pipec query cannot apply (pipec writes position deletes only)`);
    }
    const deletes = live.entries.filter((e) => e.entry.dataFile.content === CONTENT.POSITION_DELETES);
    const deleted = new Map<string, number[]>();
    for (const d of deletes) {
      // Table spec: a position delete applies to data files whose data sequence number is not
      // greater than the delete file's.
      for (const [target, positions] of await deletedPositions([d.entry.dataFile])) {
        const victim = data.find((e) => e.entry.dataFile.filePath === target);
        if (!victim || victim.sequenceNumber > d.sequenceNumber) continue;
        const path = toPath(target);
        deleted.set(path, [...(deleted.get(path) ?? []), ...positions]);
      }
    }
    return { table: name, snapshotId: String(snap['snapshot-id']), dataFiles: data.map((e) => toPath(e.entry.dataFile.filePath)), deleted };
  } finally {
    await catalog.close();
  }
}

function pickSnapshot(meta: TableMetadata, snapshotId: string | null, name: string): SnapshotJson | null {
  if (snapshotId === null) return currentSnapshot(meta);
  const snap = meta.snapshots?.find((s) => String(s['snapshot-id']) === snapshotId);
  if (!snap) {
    const known = (meta.snapshots ?? []).map((s) => String(s['snapshot-id']));
    throw new TableScanError(`table ${name} has no snapshot ${snapshotId}${known.length ? ` (its snapshots: ${known.slice(-5).join(', ')})` : ' (it has none yet)'}`);
  }
  return snap;
}

/** The snapshot ids a table has, newest last (for `--snapshot` errors spanning several tables). */
export async function snapshotIds(spec: CatalogSpec, table: string, baseDir: string): Promise<string[]> {
  const catalog = await openCatalog(spec, baseDir);
  try {
    const loaded = await catalog.load(identFromName(table));
    return (loaded?.metadata.snapshots ?? []).map((s) => String(s['snapshot-id']));
  } finally {
    await catalog.close();
  }
}
