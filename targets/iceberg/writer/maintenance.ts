// `pipec compact`: runs a compaction policy's actions once against a real table. Rewrites are
// one snapshot each and leave the table's rows unchanged; expiring snapshots is one metadata
// commit; orphan removal deletes only files no metadata can reach and older than the age.
// In a v3 table rewritten rows keep their row lineage (`_row_id` and
// `_last_updated_sequence_number` are written into the new files: the spec's rule for rows
// moved without being modified), and the deletion vectors of rewritten files go with them.
import type { IrCompactionAction } from '../../../src/plan/ir.ts';
import { IcebergTableWriter, commitMetadataChange, deletedPositions, readParquetRows } from '../../runtime/lib/iceberg/writer/table-writer.ts';
import { isDeletionVector } from '../../runtime/lib/iceberg/writer/deletion-vectors.ts';
import { readRowsToMove } from '../../runtime/lib/iceberg/writer/row-lineage.ts';
import { currentSchemaFields, type Id } from '../../runtime/lib/iceberg/writer/metadata-json.ts';
import { readLiveFiles } from '../../runtime/lib/iceberg/writer/live-files.ts';
import { CONTENT, decodeManifest, decodeManifestList, type DataFile } from '../../runtime/lib/iceberg/writer/manifests.ts';
import { currentSnapshot } from '../../runtime/lib/iceberg/writer/snapshot.ts';
import { listFiles, readBytes, remove } from '../../runtime/lib/iceberg/writer/file-io.ts';
import type { TableMetadata } from '../../runtime/lib/iceberg/writer/metadata-json.ts';
import type { LoadedTable } from '../../runtime/lib/iceberg/writer/catalogs/catalog.ts';
import { assertNever } from '../../../src/util/assert-never.ts';

export interface ActionReport {
  action: IrCompactionAction['kind'];
  detail: string;
  rewrittenFiles?: number;
  addedFiles?: number;
  expiredSnapshots?: number;
  deletedFiles?: number;
}

type Row = Record<string, unknown>;

export async function runCompactionAction(writer: IcebergTableWriter, action: IrCompactionAction, now = Date.now()): Promise<ActionReport> {
  switch (action.kind) {
    case 'rewrite_data_files':
      return rewriteSmallFiles(writer, action);
    case 'rewrite_delete_files':
      return rewriteDeleted(writer, action.deleteRatioAbove);
    case 'expire_snapshots':
      return expireSnapshots(writer, now - action.olderThanMs, action.retainLast ?? 1);
    case 'remove_orphan_files':
      return removeOrphans(writer, now - action.olderThanMs);
    default:
      return assertNever(action);
  }
}

/** Position deletes (files or vectors) of the current snapshot: data file path → deleted row positions. */
async function positionDeletes(meta: TableMetadata): Promise<{ byFile: Map<string, Set<number>>; deleteFiles: { path: string; targets: Set<string> }[] }> {
  const live = await readLiveFiles(meta);
  const byFile = new Map<string, Set<number>>();
  const deleteFiles: { path: string; targets: Set<string> }[] = [];
  for (const { entry } of live.entries) {
    if (entry.dataFile.content !== CONTENT.POSITION_DELETES) continue;
    const of = await deletedPositions([entry.dataFile]);
    for (const [f, positions] of of) byFile.set(f, new Set([...(byFile.get(f) ?? []), ...positions]));
    // A vector leaves with its data file (the writer's commit sees to it): never listed here,
    // since one Puffin file may hold vectors of files that stay.
    if (!isDeletionVector(entry.dataFile)) deleteFiles.push({ path: entry.dataFile.filePath, targets: new Set(of.keys()) });
  }
  return { byFile, deleteFiles };
}

/** A live data file to rewrite, with its data sequence number (the lineage its rows keep). */
interface Picked {
  file: DataFile;
  sequenceNumber: Id;
}

/** Rewrites `files` (applying their position deletes) into new files, in one 'replace' snapshot. */
async function rewrite(writer: IcebergTableWriter, base: LoadedTable, picked: Picked[], why: string): Promise<{ added: number }> {
  const { byFile, deleteFiles } = await positionDeletes(base.metadata);
  const fields = currentSchemaFields(base.metadata);
  const files = picked.map((p) => p.file);
  const rows: Row[] = [];
  for (const { file: f, sequenceNumber } of picked) {
    const gone = byFile.get(f.filePath) ?? new Set<number>();
    // Lossless (exact decimals, microsecond timestamps); in a v3 table with the rows' lineage.
    // Positions count before deletes: lineage is derived from the file as written.
    const all = await readRowsToMove(base.metadata, f, sequenceNumber, fields);
    all.forEach((r, i) => {
      if (!gone.has(i)) rows.push(r);
    });
  }
  const removed = new Set(files.map((f) => f.filePath));
  // Delete files whose every target is rewritten would dangle; they go in the same snapshot.
  for (const d of deleteFiles) if ([...d.targets].every((t) => removed.has(t))) removed.add(d.path);
  const newFiles = rows.length ? writer.writeFilesFor(base.metadata, rows) : [];
  await writer.commit('replace', { 'pipec.maintenance': why }, newFiles, async (meta) => {
    const live = await readLiveFiles(meta);
    const stillLive = new Set(live.entries.map((e) => e.entry.dataFile.filePath));
    for (const f of files) if (!stillLive.has(f.filePath)) throw new Error(`file ${f.filePath} was removed by a concurrent commit; compaction skipped`);
    return { replaced: removed };
  });
  return { added: newFiles.length };
}

async function rewriteSmallFiles(writer: IcebergTableWriter, a: Extract<IrCompactionAction, { kind: 'rewrite_data_files' }>): Promise<ActionReport> {
  const base = await writer.load();
  const target = a.targetBytes ?? Number(base.metadata.properties?.['write.target-file-size-bytes'] ?? 512 * 1024 * 1024);
  const below = a.fileSizeBelowBytes ?? Math.floor(target * 0.75);
  const minInput = a.minInputFiles ?? 5;
  const live = await readLiveFiles(base.metadata);
  const groups = new Map<string, Picked[]>();
  for (const { entry, manifest, sequenceNumber } of live.entries) {
    const f = entry.dataFile;
    if (f.content !== CONTENT.DATA || f.fileSizeInBytes >= below || manifest.partition_spec_id !== base.metadata['default-spec-id']) continue;
    const key = JSON.stringify(f.partition, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
    groups.set(key, [...(groups.get(key) ?? []), { file: f, sequenceNumber }]);
  }
  const picked = [...groups.values()].filter((g) => g.length >= minInput).flat();
  if (!picked.length) return { action: 'rewrite_data_files', detail: `no partition has ${minInput} or more files under ${below} bytes`, rewrittenFiles: 0, addedFiles: 0 };
  const { added } = await rewrite(writer, base, picked, 'rewrite_data_files');
  return { action: 'rewrite_data_files', detail: `bin-packed ${picked.length} small files into ${added}`, rewrittenFiles: picked.length, addedFiles: added };
}

async function rewriteDeleted(writer: IcebergTableWriter, threshold: number): Promise<ActionReport> {
  const base = await writer.load();
  const { byFile } = await positionDeletes(base.metadata);
  const live = await readLiveFiles(base.metadata);
  const picked = live.entries
    .map((e) => ({ file: e.entry.dataFile, sequenceNumber: e.sequenceNumber }))
    .filter(({ file: f }) => f.content === CONTENT.DATA && (byFile.get(f.filePath)?.size ?? 0) / Math.max(1, f.recordCount) > threshold);
  if (!picked.length) return { action: 'rewrite_delete_files', detail: `no data file has a delete ratio above ${threshold}`, rewrittenFiles: 0, addedFiles: 0 };
  const { added } = await rewrite(writer, base, picked, 'rewrite_delete_files');
  return { action: 'rewrite_delete_files', detail: `rewrote ${picked.length} files with deletes applied into ${added}`, rewrittenFiles: picked.length, addedFiles: added };
}

/** Every file a set of snapshots can reach: manifest lists, manifests, data and delete files. */
async function reachable(meta: TableMetadata, snapshotIds: Set<string>): Promise<Set<string>> {
  const out = new Set<string>();
  for (const s of meta.snapshots ?? []) {
    if (!snapshotIds.has(String(s['snapshot-id']))) continue;
    out.add(s['manifest-list']);
    for (const m of await decodeManifestList(readBytes(s['manifest-list']))) {
      if (out.has(m.manifest_path)) continue;
      out.add(m.manifest_path);
      for (const e of (await decodeManifest(readBytes(m.manifest_path))).entries) out.add(e.dataFile.filePath);
    }
  }
  return out;
}

async function expireSnapshots(writer: IcebergTableWriter, olderThanMs: number, retainLast: number): Promise<ActionReport> {
  let expired: string[] = [];
  let before = new Set<string>();
  let after = new Set<string>();
  await commitMetadataChange(writer, async ({ metadata: meta }) => {
    const snaps = meta.snapshots ?? [];
    // Keep the newest `retainLast` ancestors of the current snapshot, whatever their age.
    const keep = new Set<string>();
    let cur = currentSnapshot(meta);
    while (cur && keep.size < Math.max(1, retainLast)) {
      keep.add(String(cur['snapshot-id']));
      const parentId = cur['parent-snapshot-id'];
      cur = parentId === undefined || parentId === null ? null : (snaps.find((s) => String(s['snapshot-id']) === String(parentId)) ?? null);
    }
    expired = snaps.filter((s) => !keep.has(String(s['snapshot-id'])) && s['timestamp-ms'] < olderThanMs).map((s) => String(s['snapshot-id']));
    if (!expired.length) return null;
    const gone = new Set(expired);
    before = await reachable(meta, new Set(snaps.map((s) => String(s['snapshot-id']))));
    after = await reachable(meta, new Set(snaps.filter((s) => !gone.has(String(s['snapshot-id']))).map((s) => String(s['snapshot-id']))));
    return {
      ...meta,
      snapshots: snaps.filter((s) => !gone.has(String(s['snapshot-id']))),
      'snapshot-log': (meta['snapshot-log'] ?? []).filter((l) => !gone.has(String(l['snapshot-id']))),
    };
  });
  // Files only expired snapshots reached are deleted after the commit succeeded.
  const deletable = [...before].filter((f) => !after.has(f));
  for (const f of deletable) remove(f);
  return { action: 'expire_snapshots', detail: `expired ${expired.length} snapshots, deleted ${deletable.length} files`, expiredSnapshots: expired.length, deletedFiles: deletable.length };
}

async function removeOrphans(writer: IcebergTableWriter, olderThanMs: number): Promise<ActionReport> {
  const { metadata: meta, metadataLocation } = await writer.load();
  const keep = await reachable(meta, new Set((meta.snapshots ?? []).map((s) => String(s['snapshot-id']))));
  keep.add(metadataLocation);
  for (const l of meta['metadata-log'] ?? []) keep.add(l['metadata-file']);
  const orphans = listFiles(meta.location).filter(
    (f) => !keep.has(f.location) && f.mtimeMs < olderThanMs && !/\/version-hint\.text$/.test(f.location) && !/\/v\d+\.metadata\.json$/.test(f.location),
  );
  for (const f of orphans) remove(f.location);
  return { action: 'remove_orphan_files', detail: `removed ${orphans.length} orphan files`, deletedFiles: orphans.length };
}

