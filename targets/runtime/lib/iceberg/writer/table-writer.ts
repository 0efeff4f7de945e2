// Writes to one Iceberg table: appends, overwrites of whole partitions, and row deletes as
// position-delete files (merge-on-read). Each operation is one snapshot committed to the
// catalog with optimistic concurrency: on conflict it reloads, re-applies and retries with
// exponential backoff and jitter, a bounded number of times. Data files are written once;
// only the manifest list and metadata are redone per attempt.
// Format v3 tables: deletes are deletion vectors (one per data file per snapshot: a commit
// merges new ones with the table's), removing a data file removes its vector, and every
// snapshot carries row lineage (row-lineage.ts).
import { partitionToPath } from './partition-path.ts';
import { randomUUID } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { parquetReadObjects } from 'hyparquet';
import type { Catalog, LoadedTable, TableIdent } from './catalogs/catalog.ts';
import type { TableMetadata } from './metadata-json.ts';
import type { IcebergField } from './field-types.ts';
import { writeParquetDataFile, type ParquetCodec } from './parquet-data-file.ts';
import { applyTransform } from './transforms.ts';
import { applySnapshot, newSnapshotId, type Operation } from './snapshot.ts';
import { CONTENT, STATUS, encodeManifest, encodeManifestList, summarizeManifest, type DataFile, type ManifestEntry, type ManifestListEntry, type SpecContext } from './manifests.ts';
import { readLiveFiles } from './live-files.ts';
import { readBytes, remove, writeFileAtomic } from './file-io.ts';
import { encodeDeletionVectorFile, isDeletionVector, readDeletedPositions } from './deletion-vectors.ts';
import { assignFirstRowIds, carriesLineage, LINEAGE_FIELDS } from './row-lineage.ts';

export interface RetryPolicy {
  maxRetries: number;
  minWaitMs: number;
  maxWaitMs: number;
}

export interface WriterOptions {
  codec?: ParquetCodec;
  targetFileSizeBytes?: number;
  retry?: RetryPolicy;
  now?: () => number;
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export interface CommitResult {
  snapshotId: number | bigint;
  metadataLocation: string;
  attempts: number;
  dataFiles: string[];
}

export class CommitFailedError extends Error {}

type Row = Record<string, unknown>;

/** Reserved field ids of position delete files (table spec "Position Delete Files"). */
const DELETE_FILE_PATH_ID = 2147483546;
const DELETE_POS_ID = 2147483545;

export class IcebergTableWriter {
  private readonly retry: RetryPolicy;
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(
    readonly catalog: Catalog,
    readonly ident: TableIdent,
    private readonly opts: WriterOptions = {},
  ) {
    this.retry = opts.retry ?? { maxRetries: 10, minWaitMs: 100, maxWaitMs: 60_000 };
    this.now = opts.now ?? Date.now;
    this.random = opts.random ?? Math.random;
    this.sleep = opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  }

  async load(): Promise<LoadedTable> {
    const t = await this.catalog.load(this.ident);
    if (!t) throw new Error(`Iceberg table ${[...this.ident.namespace, this.ident.name].join('.')} does not exist in catalog ${this.catalog.name}`);
    return t;
  }

  private specContext(meta: TableMetadata): SpecContext {
    const schema = meta.schemas.find((s) => s['schema-id'] === meta['current-schema-id'])!;
    const spec = meta['partition-specs'].find((s) => s['spec-id'] === meta['default-spec-id'])!;
    return { schema: schema as SpecContext['schema'], spec, formatVersion: meta['format-version'] };
  }

  private partitionOf(ctx: SpecContext, row: Row): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const p of ctx.spec.fields) {
      const src = ctx.schema.fields.find((f) => f.id === p['source-id'])!;
      out[p.name] = applyTransform(p.transform, src.type as string, row[src.name]);
    }
    return out;
  }

  private partitionPath(ctx: SpecContext, part: Record<string, unknown>): string {
    const fields = ctx.spec.fields.map((p) => ({ name: p.name, transform: p.transform, sourceType: ctx.schema.fields.find((f) => f.id === p['source-id'])!.type as string }));
    return partitionToPath(fields, part);
  }

  /** Groups rows by partition and writes files no larger than the target size. */
  private writeDataFiles(meta: TableMetadata, rows: Row[]): DataFile[] {
    const ctx = this.specContext(meta);
    const groups = new Map<string, { part: Record<string, unknown>; rows: Row[] }>();
    for (const row of rows) {
      const part = this.partitionOf(ctx, row);
      const key = JSON.stringify(part, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
      let g = groups.get(key);
      if (!g) groups.set(key, (g = { part, rows: [] }));
      g.rows.push(row);
    }
    const target = this.opts.targetFileSizeBytes ?? Number(meta.properties?.['write.target-file-size-bytes'] ?? 512 * 1024 * 1024);
    const codec = this.opts.codec ?? codecFromProperty(meta.properties?.['write.parquet.compression-codec']);
    // Rows a rewrite moves keep their row lineage (v3): stored in the reserved columns.
    const fields = ctx.formatVersion >= 3 && carriesLineage(rows) ? [...ctx.schema.fields, ...LINEAGE_FIELDS] : ctx.schema.fields;
    const files: DataFile[] = [];
    for (const { part, rows: groupRows } of [...groups.values()]) {
      for (const chunk of splitForTarget(fields, groupRows, target, codec)) {
        const pq = writeParquetDataFile(fields, chunk, { codec });
        const dir = ctx.spec.fields.length ? `/${this.partitionPath(ctx, part)}` : '';
        const location = `${meta.location.replace(/\/+$/, '')}/data${dir}/${randomUUID()}.parquet`;
        writeFileAtomic(location, pq.bytes);
        files.push({
          content: CONTENT.DATA, filePath: location, fileFormat: 'PARQUET', partition: part, recordCount: pq.recordCount,
          fileSizeInBytes: pq.bytes.length, metrics: pq.metrics, splitOffsets: pq.splitOffsets, equalityIds: null, sortOrderId: null,
        });
      }
    }
    return files;
  }

  /**
   * Writes data files for `rows` under the table's current spec (used by compaction rewrites).
   * Rows with `_row_id` / `_last_updated_sequence_number` (row-lineage.ts `withLineage`) keep
   * them in a v3 table.
   */
  writeFilesFor(meta: TableMetadata, rows: Row[]): DataFile[] {
    return this.writeDataFiles(meta, rows);
  }

  /** Creates the table from generated metadata when the catalog does not have it yet. */
  async ensureTable(metadata: TableMetadata): Promise<LoadedTable> {
    const existing = await this.catalog.load(this.ident);
    if (existing) return existing;
    const created = await this.catalog.create(this.ident, { ...metadata, location: this.catalog.defaultLocation(this.ident), 'last-updated-ms': this.now() });
    if (created.ok) return created.table;
    return this.load();
  }

  async append(rows: Row[], properties: Record<string, string> = {}): Promise<CommitResult> {
    const base = await this.load();
    const files = this.writeDataFiles(base.metadata, rows);
    return this.commit('append', properties, files, async () => ({ replaced: new Set<string>() }));
  }

  /** Replaces every partition that `rows` touch with exactly `rows` (dynamic partition overwrite). */
  async overwritePartitions(rows: Row[], properties: Record<string, string> = {}): Promise<CommitResult> {
    const base = await this.load();
    const files = this.writeDataFiles(base.metadata, rows);
    const parts = new Set(files.map((f) => partKey(f.partition)));
    return this.commit('overwrite', properties, files, async (meta) => {
      const live = await readLiveFiles(meta);
      return { replaced: new Set(live.entries.filter((e) => e.entry.dataFile.content === CONTENT.DATA && parts.has(partKey(e.entry.dataFile.partition))).map((e) => e.entry.dataFile.filePath)) };
    });
  }

  /**
   * Deletes the rows matching `predicate` with position-delete files (merge-on-read), and
   * appends `rows` in the same snapshot: an upsert is `replaceRows(row => keys.has(key(row)), newRows)`.
   */
  async replaceRows(predicate: (row: Row) => boolean, rows: Row[], properties: Record<string, string> = {}): Promise<CommitResult> {
    const base = await this.load();
    const files = this.writeDataFiles(base.metadata, rows);
    return this.commit(rows.length ? 'overwrite' : 'delete', properties, files, async (meta) => ({
      replaced: new Set<string>(),
      deletes: await this.positionDeletesFor(meta, predicate),
    }));
  }

  /** Finds rows matching `predicate` in live data files (minus rows already deleted) and writes delete files. */
  private async positionDeletesFor(meta: TableMetadata, predicate: (row: Row) => boolean): Promise<DataFile[]> {
    const live = await readLiveFiles(meta);
    const already = await deletedPositions(live.entries.filter((e) => e.entry.dataFile.content === CONTENT.POSITION_DELETES).map((e) => e.entry.dataFile));
    const deleteFiles: DataFile[] = [];
    for (const { entry } of live.entries) {
      const f = entry.dataFile;
      if (f.content !== CONTENT.DATA) continue;
      const rows = await readParquetRows(f.filePath);
      const gone = already.get(f.filePath) ?? new Set<number>();
      const positions = rows.flatMap((r, i) => (!gone.has(i) && predicate(r) ? [i] : []));
      if (positions.length) deleteFiles.push(this.writePositionDeletes(meta, f, positions));
    }
    return deleteFiles;
  }

  /**
   * Writes (durably) one position-delete file that deletes rows `positions` (0-based, in file
   * order) of data file `target`, in the target's partition; the caller commits it. In a v3
   * table it is a deletion vector instead (position-delete files must not be added there).
   */
  writePositionDeletes(meta: TableMetadata, target: DataFile, positions: number[]): DataFile {
    if (meta['format-version'] >= 3) return this.writeDeletionVector(meta, target.filePath, target.partition, positions);
    const ctx = this.specContext(meta);
    const fields: IcebergField[] = [
      { id: DELETE_FILE_PATH_ID, name: 'file_path', required: true, type: 'string' },
      { id: DELETE_POS_ID, name: 'pos', required: true, type: 'long' },
    ];
    const sorted = [...positions].sort((a, b) => a - b);
    const pq = writeParquetDataFile(fields, sorted.map((pos) => ({ file_path: target.filePath, pos })), { codec: 'SNAPPY' });
    const dir = ctx.spec.fields.length ? `/${this.partitionPath(ctx, target.partition)}` : '';
    const location = `${meta.location.replace(/\/+$/, '')}/data${dir}/delete-${randomUUID()}.parquet`;
    writeFileAtomic(location, pq.bytes);
    return {
      content: CONTENT.POSITION_DELETES, filePath: location, fileFormat: 'PARQUET', partition: target.partition, recordCount: sorted.length,
      fileSizeInBytes: pq.bytes.length, metrics: pq.metrics, splitOffsets: pq.splitOffsets, equalityIds: null, sortOrderId: null,
    };
  }

  /** A Puffin file with one deletion vector for data file `target` (v3), durable. */
  private writeDeletionVector(meta: TableMetadata, target: string, partition: Record<string, unknown>, positions: Iterable<number>): DataFile {
    const ctx = this.specContext(meta);
    const dv = encodeDeletionVectorFile(target, positions);
    const dir = ctx.spec.fields.length ? `/${this.partitionPath(ctx, partition)}` : '';
    const location = `${meta.location.replace(/\/+$/, '')}/data${dir}/dv-${randomUUID()}.puffin`;
    writeFileAtomic(location, dv.bytes);
    return {
      content: CONTENT.POSITION_DELETES, filePath: location, fileFormat: 'PUFFIN', partition, recordCount: dv.cardinality,
      fileSizeInBytes: dv.bytes.length, metrics: null, splitOffsets: null, equalityIds: null, sortOrderId: null,
      referencedDataFile: target, contentOffset: dv.offset, contentSizeInBytes: dv.length,
    };
  }

  /**
   * v3: at most one deletion vector per data file in a snapshot. New vectors for a data file
   * that already has one (or several new ones, or position-delete files from before an
   * upgrade) become one merged vector; the table's old vector is removed in the same snapshot.
   * Vectors for data files this snapshot removes are dropped. Returns the vectors to add, the
   * table's vectors they supersede, and the caller's files merged away (removed after success).
   */
  private async mergeDeletionVectors(
    meta: TableMetadata,
    live: Awaited<ReturnType<typeof readLiveFiles>>,
    deletes: DataFile[],
    replaced: Set<string>,
    written: string[],
  ): Promise<{ deletes: DataFile[]; superseded: Set<string>; mergedAway: DataFile[] }> {
    const byTarget = new Map<string, DataFile[]>();
    for (const d of deletes) {
      if (!isDeletionVector(d) || !d.referencedDataFile) throw new Error(`format v3 table ${this.ident.name}: position-delete files must not be added (${d.filePath}); deletes are deletion vectors`);
      byTarget.set(d.referencedDataFile, [...(byTarget.get(d.referencedDataFile) ?? []), d]);
    }
    const tableVectors = new Map<string, DataFile[]>();
    const parquetDeletes: DataFile[] = [];
    for (const { entry } of live.entries) {
      const f = entry.dataFile;
      if (isDeletionVector(f)) tableVectors.set(f.referencedDataFile!, [...(tableVectors.get(f.referencedDataFile!) ?? []), f]);
      else if (f.content === CONTENT.POSITION_DELETES) parquetDeletes.push(f);
    }
    const fromParquet = parquetDeletes.length && byTarget.size ? await deletedPositions(parquetDeletes) : new Map<string, Set<number>>();
    const out: DataFile[] = [];
    const superseded = new Set<string>();
    const mergedAway: DataFile[] = [];
    for (const [target, fresh] of byTarget) {
      if (replaced.has(target)) {
        mergedAway.push(...fresh);
        continue;
      }
      const old = tableVectors.get(target) ?? [];
      if (fresh.length === 1 && old.length === 0 && !fromParquet.has(target)) {
        out.push(fresh[0]!);
        continue;
      }
      const positions = new Set<number>(fromParquet.get(target) ?? []);
      for (const d of [...fresh, ...old]) for (const p of (await readDeletedPositions(d, readParquetRows)).get(target) ?? []) positions.add(p);
      const merged = this.writeDeletionVector(meta, target, fresh[0]!.partition, positions);
      written.push(merged.filePath);
      out.push(merged);
      for (const d of old) superseded.add(vectorKey(d));
      mergedAway.push(...fresh);
    }
    return { deletes: out, superseded, mergedAway };
  }

  /**
   * The optimistic commit loop. `plan` runs against each freshly loaded base and says which
   * data files the snapshot removes and which delete files it adds; when it returns `added`,
   * that attempt adds those data files instead of `added` (a plan that re-derives its files
   * from the fresh base, e.g. an upsert re-validated after a concurrent commit).
   */
  async commit(
    operation: Operation,
    properties: Record<string, string>,
    added: DataFile[],
    plan: (meta: TableMetadata) => Promise<{ replaced: Set<string>; deletes?: DataFile[]; added?: DataFile[] }>,
  ): Promise<CommitResult> {
    const fixedAdded = added;
    const snapshotId = newSnapshotId(this.random);
    for (let attempt = 1; ; attempt++) {
      const base = await this.load();
      const meta = base.metadata;
      const ctx = this.specContext(meta);
      const seq = meta['last-sequence-number'] + 1;
      const planned = await plan(meta);
      const { replaced } = planned;
      let deletes = planned.deletes ?? [];
      added = planned.added ?? fixedAdded;
      const v3 = meta['format-version'] >= 3;
      const live = await readLiveFiles(meta);
      const written: string[] = [];
      const listEntries: ManifestListEntry[] = [];
      // Per manifest written here: rows of its data files that inherit a row id from it (v3).
      const inheriting = new Map<string, number>();
      const writeManifest = async (entries: ManifestEntry[], content: 'data' | 'deletes'): Promise<void> => {
        if (!entries.length) return;
        const loc = `${meta.location.replace(/\/+$/, '')}/metadata/${randomUUID()}-m${listEntries.length}.avro`;
        const bytes = await encodeManifest(ctx, entries, content);
        writeFileAtomic(loc, bytes);
        written.push(loc);
        listEntries.push(summarizeManifest(ctx, entries, loc, bytes.length, snapshotId, seq));
        inheriting.set(loc, entries.reduce((n, e) => n + (e.dataFile.content === CONTENT.DATA && (e.dataFile.firstRowId ?? null) === null ? e.dataFile.recordCount : 0), 0));
      };
      let vectors = { superseded: new Set<string>(), mergedAway: [] as DataFile[] };
      if (v3) ({ deletes, ...vectors } = await this.mergeDeletionVectors(meta, live, deletes, replaced, written));
      // A vector goes with the data file it deletes from, or when a merged one supersedes it.
      const isGone = (f: DataFile): boolean =>
        v3 && isDeletionVector(f) ? replaced.has(f.referencedDataFile!) || vectors.superseded.has(vectorKey(f)) : replaced.has(f.filePath);
      // New files inherit their row ids (v3): never a first_row_id of their own.
      const fresh = (f: DataFile): ManifestEntry => ({ status: STATUS.ADDED, snapshotId, sequenceNumber: null, fileSequenceNumber: null, dataFile: v3 ? { ...f, firstRowId: null } : f });
      await writeManifest(added.map(fresh), 'data');
      await writeManifest(deletes.map(fresh), 'deletes');
      let removed = { dataFiles: 0, records: 0, bytes: 0, deleteFiles: 0, positionDeletes: 0 };
      for (const m of live.manifests) {
        const mine = live.entries.filter((e) => e.manifest.manifest_path === m.manifest_path);
        if (!mine.some((e) => isGone(e.entry.dataFile))) {
          listEntries.push(m);
          continue;
        }
        // Rewrite the manifest: replaced files become DELETED in this snapshot, others EXISTING.
        // EXISTING/DELETED entries keep the row ids they inherited (live-files.ts put them on the file).
        const rewritten = mine.map(({ entry, sequenceNumber }) => {
          const gone = isGone(entry.dataFile);
          if (gone && entry.dataFile.content === CONTENT.DATA) {
            removed = { ...removed, dataFiles: removed.dataFiles + 1, records: removed.records + entry.dataFile.recordCount, bytes: removed.bytes + entry.dataFile.fileSizeInBytes };
          } else if (gone) {
            removed = { ...removed, deleteFiles: removed.deleteFiles + 1, positionDeletes: removed.positionDeletes + entry.dataFile.recordCount };
          }
          return { ...entry, status: gone ? STATUS.DELETED : STATUS.EXISTING, snapshotId: gone ? snapshotId : entry.snapshotId, sequenceNumber: Number(sequenceNumber), fileSequenceNumber: entry.fileSequenceNumber ?? Number(sequenceNumber) };
        });
        await writeManifest(v3 ? unassignedDeletedLast(rewritten) : rewritten, m.content === 1 ? 'deletes' : 'data');
      }
      const listLoc = `${meta.location.replace(/\/+$/, '')}/metadata/snap-${snapshotId}-${attempt}-${randomUUID()}.avro`;
      const parentId = meta['current-snapshot-id'] ?? null;
      // Row ids start at the table's next-row-id as of this attempt (re-read on every retry).
      const firstRowId = Number(meta['next-row-id'] ?? 0);
      const rowLineage = v3 ? { firstRowId, addedRows: assignFirstRowIds(listEntries, firstRowId, inheriting) } : undefined;
      writeFileAtomic(listLoc, await encodeManifestList(listEntries, snapshotId, parentId === -1 ? null : parentId, seq, v3 ? firstRowId : null));
      written.push(listLoc);
      const next = applySnapshot(meta, base.metadataLocation, {
        snapshotId, sequenceNumber: seq, timestampMs: Math.max(this.now(), meta['last-updated-ms']), manifestListLocation: listLoc, operation,
        added: {
          dataFiles: added.length, records: added.reduce((n, f) => n + f.recordCount, 0), bytes: added.reduce((n, f) => n + f.fileSizeInBytes, 0),
          deleteFiles: deletes.length, positionDeletes: deletes.reduce((n, f) => n + f.recordCount, 0),
        },
        removed,
        changedPartitions: new Set([...added, ...deletes].map((f) => partKey(f.partition))).size,
        properties,
        rowLineage,
      });
      const outcome = await this.catalog.commit(this.ident, base, next);
      if (outcome.ok) {
        // The caller's vectors that went into merged ones are referenced by nothing.
        for (const f of vectors.mergedAway) remove(f.filePath);
        return { snapshotId, metadataLocation: outcome.table.metadataLocation, attempts: attempt, dataFiles: added.map((f) => f.filePath) };
      }
      for (const loc of written) remove(loc);
      if (attempt > this.retry.maxRetries) throw new CommitFailedError(`commit to ${this.ident.name} failed after ${attempt} attempts: the table kept changing underneath`);
      await this.sleep(backoff(attempt, this.retry, this.random));
    }
  }
}

/** Commits a metadata-only change (no new snapshot) with the same optimistic retry loop. */
export async function commitMetadataChange(
  writer: IcebergTableWriter,
  change: (base: LoadedTable) => Promise<TableMetadata | null>,
  retry: RetryPolicy = { maxRetries: 10, minWaitMs: 100, maxWaitMs: 60_000 },
  random: () => number = Math.random,
): Promise<LoadedTable> {
  for (let attempt = 1; ; attempt++) {
    const base = await writer.load();
    const next = await change(base);
    if (next === null) return base;
    const outcome = await writer.catalog.commit(writer.ident, base, next);
    if (outcome.ok) return outcome.table;
    if (attempt > retry.maxRetries) throw new CommitFailedError(`metadata commit to ${writer.ident.name} failed after ${attempt} attempts`);
    await new Promise((r) => setTimeout(r, backoff(attempt, retry, random)));
  }
}

/** Exponential backoff with full jitter: uniform in [min, min(max, min * 2^attempt)]. */
export function backoff(attempt: number, p: RetryPolicy, random: () => number): number {
  const ceiling = Math.min(p.maxWaitMs, p.minWaitMs * 2 ** attempt);
  return p.minWaitMs + random() * (ceiling - p.minWaitMs);
}

/** A deletion vector's identity: several can share one Puffin file. */
const vectorKey = (f: DataFile): string => `${f.filePath}#${f.contentOffset}`;

/**
 * Entry order of a rewritten v3 manifest: DELETED data files without a row id (only in tables
 * upgraded from v2) go last, so whether a reader counts them when handing out inherited row
 * ids cannot shift the ids of live files.
 */
function unassignedDeletedLast(entries: ManifestEntry[]): ManifestEntry[] {
  const last = (e: ManifestEntry) => e.status === STATUS.DELETED && e.dataFile.content === CONTENT.DATA && (e.dataFile.firstRowId ?? null) === null;
  return [...entries.filter((e) => !last(e)), ...entries.filter(last)];
}

/** Positions the given delete files (Parquet position deletes or deletion vectors) delete, by data file. */
export async function deletedPositions(deleteFiles: DataFile[]): Promise<Map<string, Set<number>>> {
  const out = new Map<string, Set<number>>();
  for (const f of deleteFiles) {
    for (const [target, positions] of await readDeletedPositions(f, readParquetRows)) {
      const set = out.get(target) ?? new Set<number>();
      for (const p of positions) set.add(p);
      out.set(target, set);
    }
  }
  return out;
}

function partKey(part: Record<string, unknown>): string {
  return JSON.stringify(Object.entries(part).sort(([a], [b]) => a.localeCompare(b)), (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
}

function codecFromProperty(v: string | undefined): ParquetCodec {
  if (v === 'gzip') return 'GZIP';
  if (v === 'uncompressed') return 'UNCOMPRESSED';
  return 'SNAPPY';
}

/** Splits rows so each file lands near the target size (estimated from a sample file). */
function splitForTarget(fields: IcebergField[], rows: Row[], target: number, codec: ParquetCodec): Row[][] {
  if (rows.length <= 1000) return [rows];
  const sample = writeParquetDataFile(fields, rows.slice(0, 1000), { codec });
  const perRow = sample.bytes.length / 1000;
  const rowsPerFile = Math.max(1000, Math.floor(target / perRow));
  const out: Row[][] = [];
  for (let i = 0; i < rows.length; i += rowsPerFile) out.push(rows.slice(i, i + rowsPerFile));
  return out;
}

export async function readParquetRows(location: string): Promise<Row[]> {
  const buf = readBytes(location);
  const file = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
  return (await parquetReadObjects({
    file,
    compressors: { GZIP: (input: Uint8Array) => new Uint8Array(gunzipSync(input)) },
  } as never)) as Row[];
}
