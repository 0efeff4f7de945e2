// Turns a base table metadata plus one new snapshot into the next metadata version: snapshot
// list, `main` ref, sequence numbers, snapshot and metadata logs, summary totals, and for v3
// tables row lineage: the snapshot's `first-row-id` (the table's `next-row-id` when the attempt
// was made) and `added-rows` (the row ids its manifest list handed out), and the table's
// `next-row-id` moved past them (what a REST catalog server computes itself from the two).
import type { Id, SnapshotJson, TableMetadata } from './metadata-json.ts';

export type Operation = 'append' | 'overwrite' | 'replace' | 'delete';

export interface SnapshotChange {
  snapshotId: Id;
  sequenceNumber: number;
  timestampMs: number;
  manifestListLocation: string;
  operation: Operation;
  added: { dataFiles: number; records: number; bytes: number; deleteFiles: number; positionDeletes: number };
  removed: { dataFiles: number; records: number; bytes: number; deleteFiles: number; positionDeletes: number };
  changedPartitions: number;
  /** Caller properties (e.g. the runtime's source offsets), stored in the snapshot summary. */
  properties: Record<string, string>;
  /** v3 tables: the row id range the snapshot assigns (see row-lineage.ts). */
  rowLineage?: { firstRowId: number; addedRows: number };
}

export function currentSnapshot(meta: TableMetadata): SnapshotJson | null {
  const id = meta['current-snapshot-id'];
  if (id === null || id === undefined || id === -1) return null;
  return meta.snapshots?.find((s) => String(s['snapshot-id']) === String(id)) ?? null;
}

const num = (s: Record<string, string> | undefined, k: string): number => Number(s?.[k] ?? 0);

export function applySnapshot(base: TableMetadata, baseLocation: string | null, c: SnapshotChange): TableMetadata {
  const parent = currentSnapshot(base);
  const p = parent?.summary;
  const summary: Record<string, string> = {
    operation: c.operation,
    ...c.properties,
    'added-data-files': String(c.added.dataFiles),
    'added-records': String(c.added.records),
    'added-files-size': String(c.added.bytes),
    'deleted-data-files': String(c.removed.dataFiles),
    'deleted-records': String(c.removed.records),
    'removed-files-size': String(c.removed.bytes),
    'added-delete-files': String(c.added.deleteFiles),
    'added-position-deletes': String(c.added.positionDeletes),
    'removed-delete-files': String(c.removed.deleteFiles),
    'changed-partition-count': String(c.changedPartitions),
    'total-data-files': String(num(p, 'total-data-files') + c.added.dataFiles - c.removed.dataFiles),
    'total-records': String(num(p, 'total-records') + c.added.records - c.removed.records),
    'total-files-size': String(num(p, 'total-files-size') + c.added.bytes - c.removed.bytes),
    'total-delete-files': String(num(p, 'total-delete-files') + c.added.deleteFiles - c.removed.deleteFiles),
    'total-position-deletes': String(num(p, 'total-position-deletes') + c.added.positionDeletes - c.removed.positionDeletes),
    'total-equality-deletes': String(num(p, 'total-equality-deletes')),
  };
  const snapshot: SnapshotJson = {
    'snapshot-id': c.snapshotId,
    ...(parent ? { 'parent-snapshot-id': parent['snapshot-id'] } : {}),
    'sequence-number': c.sequenceNumber,
    'timestamp-ms': c.timestampMs,
    'manifest-list': c.manifestListLocation,
    summary,
    'schema-id': base['current-schema-id'],
    ...(c.rowLineage ? { 'first-row-id': c.rowLineage.firstRowId, 'added-rows': c.rowLineage.addedRows } : {}),
  };
  return {
    ...base,
    ...(c.rowLineage ? { 'next-row-id': c.rowLineage.firstRowId + c.rowLineage.addedRows } : {}),
    'last-sequence-number': c.sequenceNumber,
    'last-updated-ms': c.timestampMs,
    'current-snapshot-id': c.snapshotId,
    snapshots: [...(base.snapshots ?? []), snapshot],
    refs: { ...(base.refs ?? {}), main: { 'snapshot-id': c.snapshotId, type: 'branch' } },
    'snapshot-log': [...(base['snapshot-log'] ?? []), { 'timestamp-ms': c.timestampMs, 'snapshot-id': c.snapshotId }],
    'metadata-log': baseLocation
      ? [...(base['metadata-log'] ?? []), { 'timestamp-ms': base['last-updated-ms'], 'metadata-file': baseLocation }]
      : (base['metadata-log'] ?? []),
  };
}

/** A random positive snapshot id that a JS number holds exactly (53 bits). */
export function newSnapshotId(random: () => number): number {
  return Math.floor(random() * (Number.MAX_SAFE_INTEGER - 1)) + 1;
}
