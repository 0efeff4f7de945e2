// Upserts and deletes of an Iceberg sink fed by a changelog (upsert/retract input keyed by the
// sink's upsert key). Between two checkpoints the sink keeps the last change per key (a row,
// or a delete for '-D' and '-U'; a '+U' that follows its '-U' replaces it). At each checkpoint
// `flushBatch()` turns them into files against the WINDOW: the table state that the next
// table commit applies to (the snapshot loaded when the window opened) plus everything the
// window's earlier batches wrote. For every touched key it locates the key's live rows there
// (files pruned by partition and key bounds, then read) and
//   merge-on-read: writes position-delete files for them (rows of this window's own earlier
//                  files included: they land in the same snapshot, and position deletes apply
//                  to data files of the same sequence number);
//   copy-on-write: rewrites each affected data file without them (the snapshot replaces it).
// Then the new rows become data files. Everything is durable before the checkpoint records it.
// `plan()` (inside the writer's optimistic commit loop) uses those files when the table is
// still at the window's snapshot; otherwise (a concurrent commit, e.g. compaction) it drops
// what was computed against table files and locates every touched key again in the fresh
// table, so a retry always re-validates. Equality deletes are never written: pyiceberg, the
// reference reader, cannot read them.
import * as path from 'node:path';
import type { Row } from '../ops/types.ts';
import { rowKind } from '../ops/types.ts';
import { fsyncDir } from '../io/sinks.ts';
import { CONTENT, type DataFile } from './writer/manifests.ts';
import { currentSchemaFields, type TableMetadata } from './writer/metadata-json.ts';
import { readLiveFiles } from './writer/live-files.ts';
import { currentSnapshot } from './writer/snapshot.ts';
import { deletedPositions } from './writer/table-writer.ts';
import { readDataFileRecords } from './writer/read-records.ts';
import { readRowsToMove } from './writer/row-lineage.ts';
import { remove, toPath } from './writer/file-io.ts';
import type { IcebergField } from './writer/field-types.ts';
import type { BoundTable } from './table-binding.ts';
import { KeyCodec, KeySet, PartitionFilter, type KeyRef } from './row-keys.ts';

type Rec = Record<string, unknown>;
export type WriteMode = 'copy-on-write' | 'merge-on-read';

/** What one checkpoint's batch of an upsert sink adds to the pending table commit. */
export interface UpsertParts {
  /** Data files with the batch's new rows (the latest row of each upserted key). */
  files: DataFile[];
  /** Copy-on-write: the surviving rows of data files this batch rewrote (table rows). */
  rewrites: DataFile[];
  /** Merge-on-read: position-delete files, each deleting rows of the data file `target`. */
  deletes: { file: DataFile; target: string }[];
  /** Copy-on-write: data files this batch replaces (table files, or the window's own earlier files). */
  removes: string[];
  /** Every key the batch touched (column values): re-located when the table moved meanwhile. */
  keys: unknown[][];
  /** Snapshot id (text) the window computed against; null for a table without snapshots. */
  base: string | null;
}

/** A data file visible in a window: `origin` says whose rows it holds. */
interface ViewFile {
  file: DataFile;
  specId: number;
  origin: 'table' | 'new' | 'rewrite';
  /** Data sequence number of a table file (the lineage its moved rows keep in a v3 table). */
  seq?: bigint;
}

/** The table state a batch is computed against, with the positions already deleted in it. */
interface Window {
  meta: TableMetadata;
  base: string | null;
  fields: IcebergField[];
  view: ViewFile[];
  /** Position-delete files / deletion vectors of the table, by partition text, not yet read. */
  unreadDeletes: Map<string, DataFile[]>;
  deleted: Map<string, Set<number>>;
}

const snapshotText = (meta: TableMetadata): string | null => {
  const s = currentSnapshot(meta);
  return s ? String(s['snapshot-id']) : null;
};

const partText = (p: Record<string, unknown>): string =>
  JSON.stringify(Object.entries(p).sort(([a], [b]) => a.localeCompare(b)), (_k, v) => (typeof v === 'bigint' ? v.toString() : v));

export class UpsertWriter {
  /** Last change per key since the previous checkpoint: a row to write, or null to delete. */
  private changes = new Map<string, { key: KeyRef; record: Rec | null }>();
  private window: Window | null = null;
  /** Files written by a re-validating plan whose commit attempt lost (removed on the next attempt). */
  private revalidated: string[] = [];
  /** Keys re-located by the last plan() because the table had moved (0: it had not). */
  relocatedKeys = 0;
  /** Paths of the files the last plan() put into its attempt. */
  private planned = new Set<string>();

  constructor(
    private readonly t: BoundTable,
    readonly codec: KeyCodec,
    private readonly mode: WriteMode,
  ) {}

  /** '+I'/'+U': the key's row is this one; '-D'/'-U': the key has no row (unless a later row comes). */
  add(row: Row): void {
    const record = this.t.toRecord(row);
    const key = this.codec.ref(record);
    const kind = rowKind(row);
    this.changes.set(key.id, { key, record: kind === '-D' || kind === '-U' ? null : record });
  }

  private async openWindow(meta: TableMetadata): Promise<Window> {
    const live = await readLiveFiles(meta);
    const view: ViewFile[] = [];
    const unreadDeletes = new Map<string, DataFile[]>();
    for (const { entry, manifest, sequenceNumber } of live.entries) {
      const f = entry.dataFile;
      if (f.content === CONTENT.DATA) view.push({ file: f, specId: manifest.partition_spec_id, origin: 'table', seq: sequenceNumber });
      else if (f.content === CONTENT.POSITION_DELETES) {
        const k = `${manifest.partition_spec_id}:${partText(f.partition)}`;
        unreadDeletes.set(k, [...(unreadDeletes.get(k) ?? []), f]);
      } else if (this.mode === 'copy-on-write') {
        // A rewritten file gets a newer sequence number, which equality deletes no longer apply to.
        throw new Error(`the table has equality-delete files (written by another engine, e.g. ${f.filePath}); copy-on-write would bring their deleted rows back: rewrite them away first, or use write_mode = 'merge-on-read'`);
      }
    }
    return { meta, base: snapshotText(meta), fields: currentSchemaFields(meta), view, unreadDeletes, deleted: new Map() };
  }

  /** Positions of `vf` already deleted (by the table's delete files or this window). */
  private async deletedIn(w: Window, vf: ViewFile): Promise<Set<number>> {
    const k = `${vf.specId}:${partText(vf.file.partition)}`;
    const unread = w.unreadDeletes.get(k);
    if (unread) {
      w.unreadDeletes.delete(k);
      for (const [target, positions] of await deletedPositions(unread)) {
        const set = w.deleted.get(target) ?? new Set<number>();
        for (const p of positions) set.add(p);
        w.deleted.set(target, set);
      }
    }
    let set = w.deleted.get(vf.file.filePath);
    if (!set) w.deleted.set(vf.file.filePath, (set = new Set()));
    return set;
  }

  /** Live rows of `keys` in the window: file → positions. */
  private async locate(w: Window, keys: KeyRef[]): Promise<{ vf: ViewFile; positions: number[] }[]> {
    if (keys.length === 0) return [];
    const ids = new Set(keys.map((k) => k.id));
    const parts = PartitionFilter.of(w.meta, this.codec);
    const wanted = parts?.partitionsOf(keys) ?? null;
    const set = new KeySet(this.codec, keys);
    const hits: { vf: ViewFile; positions: number[] }[] = [];
    for (const vf of w.view) {
      if (parts && wanted && !parts.mayHold(vf.file, vf.specId, wanted)) continue;
      if (!set.mayHoldAny(vf.file)) continue;
      const rows = await readDataFileRecords(vf.file.filePath, this.codec.fields);
      const gone = await this.deletedIn(w, vf);
      const positions: number[] = [];
      rows.forEach((r, i) => {
        if (!gone.has(i) && ids.has(this.codec.ref(r).id)) positions.push(i);
      });
      if (positions.length) hits.push({ vf, positions });
    }
    return hits;
  }

  /** Removes the located rows from the window: position deletes or file rewrites, into `out`. */
  private async removeRows(w: Window, hits: { vf: ViewFile; positions: number[] }[], out: UpsertParts): Promise<void> {
    const specId = w.meta['default-spec-id'];
    for (const { vf, positions } of hits) {
      const gone = await this.deletedIn(w, vf);
      if (this.mode === 'merge-on-read') {
        out.deletes.push({ file: this.t.writer.writePositionDeletes(w.meta, vf.file, positions), target: vf.file.filePath });
        for (const p of positions) gone.add(p);
        continue;
      }
      const drop = new Set([...gone, ...positions]);
      const rows = (await readRowsToMove(w.meta, vf.file, vf.seq ?? null, w.fields)).filter((_r, i) => !drop.has(i));
      const files = rows.length ? this.t.writer.writeFilesFor(w.meta, rows) : [];
      w.view = w.view.filter((x) => x !== vf);
      out.removes.push(vf.file.filePath);
      const origin = vf.origin === 'new' ? 'new' : 'rewrite';
      (origin === 'new' ? out.files : out.rewrites).push(...files);
      w.view.push(...files.map((file) => ({ file, specId, origin }) as ViewFile));
    }
  }

  /**
   * At a checkpoint: the changes since the previous one → durable files (see the top comment).
   * Null when nothing changed.
   */
  async flushBatch(): Promise<UpsertParts | null> {
    if (this.changes.size === 0) return null;
    const changes = [...this.changes.values()];
    this.changes = new Map();
    const w = (this.window ??= await this.openWindow((await this.t.writer.load()).metadata));
    const out: UpsertParts = { files: [], rewrites: [], deletes: [], removes: [], keys: changes.map((c) => c.key.values), base: w.base };
    await this.removeRows(w, await this.locate(w, changes.map((c) => c.key)), out);
    const rows = changes.flatMap((c) => (c.record ? [c.record] : []));
    const added = rows.length ? this.t.writer.writeFilesFor(w.meta, rows) : [];
    out.files.push(...added);
    w.view.push(...added.map((file) => ({ file, specId: w.meta['default-spec-id'], origin: 'new' }) as ViewFile));
    syncDirs([...out.files, ...out.rewrites, ...out.deletes.map((d) => d.file)]);
    return out;
  }

  /** The table commit happened (or the run ends): the next batch opens a new window. */
  resetWindow(): void {
    this.window = null;
    this.revalidated = [];
  }

  /**
   * After the table commit of `batches` by the last plan(): their files that commit left out
   * (copy-on-write files a later batch rewrote, files computed against a table that moved)
   * are referenced by nothing and never will be — a restart finds the commit's seq — so they go.
   */
  removeUncommitted(batches: UpsertParts[]): void {
    for (const b of batches) {
      for (const f of [...b.files, ...b.rewrites, ...b.deletes.map((d) => d.file)]) if (!this.planned.has(f.filePath)) remove(f.filePath);
    }
    this.planned = new Set();
  }

  /**
   * What one commit attempt against `meta` adds and replaces for `batches` (oldest first).
   * Precomputed files when the table is still at the batches' snapshot; else re-validated.
   */
  async plan(batches: UpsertParts[], meta: TableMetadata): Promise<{ added: DataFile[]; deletes: DataFile[]; replaced: Set<string> }> {
    for (const loc of this.revalidated) remove(loc);
    this.revalidated = [];
    const removed = new Set(batches.flatMap((b) => b.removes));
    const newFiles = batches.flatMap((b) => b.files).filter((f) => !removed.has(f.filePath));
    const rewrites = batches.flatMap((b) => b.rewrites).filter((f) => !removed.has(f.filePath));
    const ownPaths = new Set(batches.flatMap((b) => [...b.files, ...b.rewrites]).map((f) => f.filePath));
    const deletes = batches.flatMap((b) => b.deletes);
    const now = snapshotText(meta);
    if (batches.every((b) => b.base === now)) {
      this.relocatedKeys = 0;
      return this.remember({ added: [...newFiles, ...rewrites], deletes: deletes.map((d) => d.file), replaced: new Set([...removed].filter((p) => !ownPaths.has(p))) });
    }
    // The table moved since the files were computed: what was computed against table files is
    // dropped; every touched key is located again in this table state.
    const newPaths = new Set(batches.flatMap((b) => b.files).map((f) => f.filePath));
    const keys = new Map<string, KeyRef>();
    for (const b of batches) for (const values of b.keys) keys.set(this.codec.idOf(values), { id: this.codec.idOf(values), values });
    const w = await this.openWindow(meta);
    const out: UpsertParts = { files: [], rewrites: [], deletes: [], removes: [], keys: [], base: w.base };
    await this.removeRows(w, await this.locate(w, [...keys.values()]), out);
    const written = [...out.rewrites, ...out.deletes.map((d) => d.file)];
    syncDirs(written);
    this.revalidated = written.map((f) => f.filePath);
    this.relocatedKeys = keys.size;
    return this.remember({
      added: [...newFiles, ...out.rewrites],
      deletes: [...deletes.filter((d) => newPaths.has(d.target)).map((d) => d.file), ...out.deletes.map((d) => d.file)],
      replaced: new Set(out.removes),
    });
  }

  private remember<T extends { added: DataFile[]; deletes: DataFile[] }>(p: T): T {
    this.planned = new Set([...p.added, ...p.deletes].map((f) => f.filePath));
    return p;
  }
}

/** The files were fsynced before their rename; their directory entries need it too. */
export function syncDirs(files: DataFile[]): void {
  for (const dir of new Set(files.map((f) => path.dirname(toPath(f.filePath))))) fsyncDir(dir);
}
