// Writes to one Iceberg table: appends, overwrites of whole partitions, and row deletes as
// position-delete files (merge-on-read). Each operation is one snapshot committed to the
// catalog with optimistic concurrency: on conflict it reloads, re-applies and retries with
// exponential backoff and jitter, a bounded number of times. Data files are written once;
// only the manifest list and metadata are redone per attempt.
import { randomUUID } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { parquetReadObjects } from 'hyparquet';
import type { Catalog, LoadedTable, TableIdent } from './catalogs/catalog.ts';
import type { TableMetadata } from './metadata-json.ts';
import type { IcebergField } from '../type-map.ts';
import { writeParquetDataFile, type ParquetCodec } from './parquet-data-file.ts';
import { applyTransform } from './transforms.ts';
import { applySnapshot, newSnapshotId, type Operation } from './snapshot.ts';
import { CONTENT, STATUS, encodeManifest, encodeManifestList, summarizeManifest, type DataFile, type ManifestEntry, type ManifestListEntry, type SpecContext } from './manifests.ts';
import { readLiveFiles } from './live-files.ts';
import { readBytes, remove, writeFileAtomic } from './file-io.ts';

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
    return ctx.spec.fields.map((p) => `${encodeURIComponent(p.name)}=${encodeURIComponent(part[p.name] === null ? 'null' : String(part[p.name]))}`).join('/');
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
    const files: DataFile[] = [];
    for (const { part, rows: groupRows } of [...groups.values()]) {
      for (const chunk of splitForTarget(ctx.schema.fields, groupRows, target, codec)) {
        const pq = writeParquetDataFile(ctx.schema.fields, chunk, { codec });
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

  /** Writes data files for `rows` under the table's current spec (used by compaction rewrites). */
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
    const already = await this.deletedPositions(live.entries.filter((e) => e.entry.dataFile.content === CONTENT.POSITION_DELETES).map((e) => e.entry.dataFile.filePath));
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
   * order) of data file `target`, in the target's partition; the caller commits it.
   */
  writePositionDeletes(meta: TableMetadata, target: DataFile, positions: number[]): DataFile {
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

  private async deletedPositions(deleteFiles: string[]): Promise<Map<string, Set<number>>> {
    const out = new Map<string, Set<number>>();
    for (const path of deleteFiles) {
      for (const r of await readParquetRows(path)) {
        const set = out.get(r.file_path as string) ?? new Set<number>();
        set.add(Number(r.pos));
        out.set(r.file_path as string, set);
      }
    }
    return out;
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
      const { replaced, deletes = [] } = planned;
      added = planned.added ?? fixedAdded;
      const live = await readLiveFiles(meta);
      const written: string[] = [];
      const listEntries: ManifestListEntry[] = [];
      const writeManifest = async (entries: ManifestEntry[], content: 'data' | 'deletes'): Promise<void> => {
        if (!entries.length) return;
        const loc = `${meta.location.replace(/\/+$/, '')}/metadata/${randomUUID()}-m${listEntries.length}.avro`;
        const bytes = await encodeManifest(ctx, entries, content);
        writeFileAtomic(loc, bytes);
        written.push(loc);
        listEntries.push(summarizeManifest(ctx, entries, loc, bytes.length, snapshotId, seq));
      };
      const fresh = (f: DataFile): ManifestEntry => ({ status: STATUS.ADDED, snapshotId, sequenceNumber: null, fileSequenceNumber: null, dataFile: f });
      await writeManifest(added.map(fresh), 'data');
      await writeManifest(deletes.map(fresh), 'deletes');
      let removed = { dataFiles: 0, records: 0, bytes: 0, deleteFiles: 0, positionDeletes: 0 };
      for (const m of live.manifests) {
        const mine = live.entries.filter((e) => e.manifest.manifest_path === m.manifest_path);
        if (!mine.some((e) => replaced.has(e.entry.dataFile.filePath))) {
          listEntries.push(m);
          continue;
        }
        // Rewrite the manifest: replaced files become DELETED in this snapshot, others EXISTING.
        const rewritten = mine.map(({ entry, sequenceNumber }) => {
          const gone = replaced.has(entry.dataFile.filePath);
          if (gone && entry.dataFile.content === CONTENT.DATA) {
            removed = { ...removed, dataFiles: removed.dataFiles + 1, records: removed.records + entry.dataFile.recordCount, bytes: removed.bytes + entry.dataFile.fileSizeInBytes };
          } else if (gone) {
            removed = { ...removed, deleteFiles: removed.deleteFiles + 1, positionDeletes: removed.positionDeletes + entry.dataFile.recordCount };
          }
          return { ...entry, status: gone ? STATUS.DELETED : STATUS.EXISTING, snapshotId: gone ? snapshotId : entry.snapshotId, sequenceNumber: Number(sequenceNumber), fileSequenceNumber: entry.fileSequenceNumber ?? Number(sequenceNumber) };
        });
        await writeManifest(rewritten, m.content === 1 ? 'deletes' : 'data');
      }
      const listLoc = `${meta.location.replace(/\/+$/, '')}/metadata/snap-${snapshotId}-${attempt}-${randomUUID()}.avro`;
      const parentId = meta['current-snapshot-id'] ?? null;
      writeFileAtomic(listLoc, await encodeManifestList(listEntries, snapshotId, parentId === -1 ? null : parentId, seq));
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
      });
      const outcome = await this.catalog.commit(this.ident, base, next);
      if (outcome.ok) return { snapshotId, metadataLocation: outcome.table.metadataLocation, attempts: attempt, dataFiles: added.map((f) => f.filePath) };
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
