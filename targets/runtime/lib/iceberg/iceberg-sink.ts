// The runtime's Iceberg sink: exactly-once appends with a two-phase commit aligned with the
// runner's checkpoints (the shape of Flink's Iceberg committer).
//   write()           rows are buffered; a full buffer becomes Parquet data files (not yet listed anywhere)
//   commit()          before a checkpoint: buffered rows become data files, made durable; the
//                     progress lists every data file not yet in the table, by checkpoint seq
//   afterCheckpoint() the checkpoint is durable: once `commit_interval` has passed since the last
//                     table commit, every pending file goes into the table in ONE snapshot whose
//                     summary holds pipec.pipeline / pipec.sink / pipec.checkpoint-seq /
//                     pipec.source-positions
//   open(progress)    after a crash: batches whose seq a snapshot of this pipeline's sink already
//                     covers are dropped, the others are committed now; files written after the
//                     last checkpoint are orphans, never referenced (`pipec compact` removes them)
//   close()           publishes what durable checkpoints recorded (everything, without checkpoints)
// Scaled out (ctx.member set), members commit to one table concurrently (the writer's
// optimistic loop retries a lost race); each snapshot's summary also names its member
// (pipec.member), and a member counts only its own snapshots as covering its seqs.
// Changelog input (upsert/retract keyed by the upsert key) goes through upsert-window.ts: the
// last change per key until the checkpoint, then position deletes (merge-on-read) or rewritten
// files (copy-on-write) plus new rows, all durable and in the checkpoint before the table
// commit, re-validated by the commit loop if the table moved meanwhile.
import * as path from 'node:path';
import type { Row } from '../ops/types.ts';
import type { RunningSink, SinkDef } from '../io/sinks.ts';
import { fsyncDir } from '../io/sinks.ts';
import type { ConnectorContext } from '../connectors.ts';
import type { DataFile } from './writer/manifests.ts';
import { exists, toPath } from './writer/file-io.ts';
import type { IcebergSinkSpec } from './spec.ts';
import { bindTable, IcebergSinkError, SinkLabel, type BoundTable } from './table-binding.ts';
import { decodeState } from '../codec.ts';
import { committedSeq, decodeProgress, encodeProgress, SUMMARY, type Batch, type Progress } from './progress.ts';
import { KeyCodec } from './row-keys.ts';
import { UpsertWriter, type UpsertParts } from './upsert-window.ts';
import type { IcebergField } from './writer/field-types.ts';

/** Source positions as plain JSON for people and other tools (Maps → objects, BigInts → strings). */
function plainJson(positions: Record<string, unknown>): string {
  const plain = (v: unknown): unknown => {
    if (typeof v === 'bigint') return v.toString();
    if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [String(k), plain(x)]));
    if (v instanceof Set) return [...v].map(plain);
    if (Array.isArray(v)) return v.map(plain);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
    return v;
  };
  // Each source's position is encoded checkpoint state (codec.ts); the record around them is not.
  return JSON.stringify(plain(Object.fromEntries(Object.entries(positions).map(([k, v]) => [k, decodeState(v)]))));
}

/** Thrown inside the commit loop when the table already holds this commit (an earlier attempt won). */
class AlreadyCommitted extends Error {}

/**
 * Test hook (`PIPEC_TEST_ICEBERG_CRASH`): die like a SIGKILL at one point of the protocol, at
 * the first table commit or, with `@N`, at the N-th one of this run.
 */
type CrashPoint = 'before-table-commit' | 'after-table-commit';

/** Rows buffered before a data file is written regardless of size (bounds memory). */
const MAX_BUFFER_ROWS = 500_000;
/** A committed data file below this fraction of `target_file_size` counts as small (Iceberg's rewrite_data_files default min-file-size is 75 %). */
export const SMALL_FILE_FRACTION = 0.75;

export class IcebergSink implements RunningSink {
  rowsOut = 0;
  private readonly spec: IcebergSinkSpec;
  private readonly label: SinkLabel;
  private readonly crashAt: CrashPoint | null;
  private readonly crashAtPublish: number;
  private publishes = 0;
  private ready: Promise<void> | null = null;
  private failure: Error | null = null;
  /** The failure reached the runner through commit()/afterCheckpoint(). */
  private reported = false;
  private table: BoundTable | null = null;
  private buffer: Row[] = [];
  /** Data files written since the last commit(): in no checkpoint yet. */
  private written: DataFile[] = [];
  private pending: Batch[] = [];
  /** Sequence number of the last commit() (checkpoint) and of the last durable one. */
  private seq = 0;
  private durableSeq = 0;
  private lastTableCommit = Date.now();
  private bytesPerRow = 64;
  /** Changelog input only: keeps the last change per key and turns it into deletes + rows. */
  private upsert: UpsertWriter | null = null;
  /** Scaled out: the "table changed, keys located again" warning was given once. */
  private relocationWarned = false;
  /** Data files this run committed to the table, and how many of them were small (`/metrics`, alert rules). */
  private committedFiles = 0;
  private committedSmallFiles = 0;

  constructor(
    readonly def: SinkDef,
    private readonly ctx: ConnectorContext,
  ) {
    if (!def.iceberg) throw new Error('internal: an Iceberg sink definition without its table settings');
    this.spec = def.iceberg;
    this.label = new SinkLabel(def.name, this.spec);
    if (!this.spec.catalog) throw this.label.error('the sink names no declared catalog');
    if (this.spec.changelog !== 'append' && !this.spec.upsertKey) {
      throw this.label.error(`its input is a ${this.spec.changelog} changelog without a key: rows can only be replaced or deleted by key (give the input a primary key or GROUP BY key)`);
    }
    const crash = ctx.env.PIPEC_TEST_ICEBERG_CRASH;
    const [point, nth] = (crash ?? '').split('@');
    this.crashAt = point === 'before-table-commit' || point === 'after-table-commit' ? point : null;
    this.crashAtPublish = Number(nth ?? 1) || 1;
  }

  open(progress: unknown): void {
    this.ready = this.start(decodeProgress(progress));
    // Reported by the next commit()/close(); never an unhandled rejection.
    this.ready.catch((e: Error) => (this.failure = e));
  }

  private async start(progress: Progress | null): Promise<void> {
    this.table = await bindTable(this.def, this.spec, this.ctx.baseDir, this.label);
    const meta = this.table.loaded.metadata;
    if (this.spec.changelog !== 'append') {
      const fields = (meta.schemas.find((s) => s['schema-id'] === meta['current-schema-id'])?.fields ?? []) as IcebergField[];
      const codec = new KeyCodec(fields, this.table.keyFields);
      const bad = codec.unsupportedColumn();
      if (bad) throw this.label.error(`upsert key column ${bad.name} has type ${bad.type}, which cannot be a key`);
      this.upsert = new UpsertWriter(this.table, codec, this.spec.writeMode);
    }
    const inTable = committedSeq(meta, this.ctx.pipeline, this.def.name, this.ctx.member);
    // Numbering continues the table's, so a run started without a checkpoint never reuses a
    // sequence number that an earlier run already committed.
    this.seq = Math.max(progress?.seq ?? 0, inTable);
    // Every batch of a checkpoint we resume from is durable by definition.
    this.durableSeq = this.seq;
    const left = (progress?.pending ?? []).filter((b) => b.seq > inTable);
    for (const b of left) {
      const files = [...b.files, ...(b.upsert?.rewrites ?? []), ...(b.upsert?.deletes ?? []).map((d) => d.file)];
      for (const f of files) {
        if (!exists(f.filePath)) throw this.label.error(`data file ${f.filePath} of checkpoint ${b.seq} is gone; its rows cannot be committed`);
      }
    }
    this.pending = left;
    if (left.length > 0) await this.publish(left);
  }

  private async whenReady(): Promise<BoundTable> {
    if (!this.ready) throw new Error('internal: Iceberg sink used before open()');
    await this.ready.catch(() => undefined);
    if (this.failure) {
      this.reported = true;
      throw this.failure;
    }
    return this.table!;
  }

  write(row: Row): void {
    this.rowsOut++;
    if (this.upsert) {
      // Rows that arrived before the table was bound go first, in order.
      if (this.buffer.length) this.foldBuffer(this.upsert);
      this.upsert.add(row);
      return;
    }
    this.buffer.push(row);
    if (this.spec.changelog !== 'append') return;
    if (this.table && (this.buffer.length >= MAX_BUFFER_ROWS || this.buffer.length * this.bytesPerRow >= this.spec.targetFileSizeBytes)) this.roll(this.table);
  }

  flush(): void {}

  /** Buffered rows → durable Parquet data files (grouped by partition, split at the target size). */
  private roll(t: BoundTable): void {
    if (this.buffer.length === 0) return;
    const rows = this.buffer.map(t.toRecord);
    this.buffer = [];
    const files = t.writer.writeFilesFor(t.loaded.metadata, rows);
    // The files were fsynced before their rename; the directory entries need it too.
    for (const dir of new Set(files.map((f) => path.dirname(toPath(f.filePath))))) fsyncDir(dir);
    const bytes = files.reduce((n, f) => n + f.fileSizeInBytes, 0);
    if (rows.length > 0) this.bytesPerRow = Math.max(1, bytes / rows.length);
    this.written.push(...files);
  }

  private foldBuffer(u: UpsertWriter): void {
    for (const r of this.buffer) u.add(r);
    this.buffer = [];
  }

  async commit(): Promise<unknown> {
    const t = await this.whenReady();
    if (this.upsert) return this.commitChanges(this.upsert);
    this.roll(t);
    this.seq++;
    if (this.written.length > 0) {
      this.pending.push({ seq: this.seq, files: this.written, positions: this.ctx.sourcePositions() });
      this.written = [];
    }
    return encodeProgress({ seq: this.seq, pending: this.pending });
  }

  /** commit() of a changelog sink: the batch's deletes / rewrites / new rows, durable, in the progress. */
  private async commitChanges(u: UpsertWriter): Promise<unknown> {
    this.foldBuffer(u);
    let parts: UpsertParts | null;
    try {
      parts = await u.flushBatch();
    } catch (e) {
      throw e instanceof IcebergSinkError ? e : this.label.error('writing the changes failed', e);
    }
    this.seq++;
    if (parts) {
      const { files, ...upsert } = parts;
      this.pending.push({ seq: this.seq, files, positions: this.ctx.sourcePositions(), upsert });
    }
    return encodeProgress({ seq: this.seq, pending: this.pending });
  }

  async afterCheckpoint(): Promise<void> {
    await this.whenReady();
    this.durableSeq = this.seq;
    if (this.pending.length > 0 && Date.now() - this.lastTableCommit >= this.spec.commitIntervalMs) await this.publish(this.pending);
  }

  /** Commits `batches` to the table in one snapshot, unless a snapshot already covers them. */
  private async publish(batches: Batch[]): Promise<void> {
    if (batches.length === 0) return;
    const t = this.table!;
    const top = batches[batches.length - 1]!;
    const properties = {
      [SUMMARY.pipeline]: this.ctx.pipeline,
      [SUMMARY.sink]: this.def.name,
      [SUMMARY.seq]: String(top.seq),
      [SUMMARY.positions]: plainJson(top.positions),
      // Scaled out: which member's checkpoint seq this is (recovery reads only its own).
      ...(this.ctx.member !== null ? { [SUMMARY.member]: this.ctx.member } : {}),
    };
    const crashHere = ++this.publishes === this.crashAtPublish;
    if (crashHere && this.crashAt === 'before-table-commit') process.kill(process.pid, 'SIGKILL');
    const u = this.upsert;
    const parts = u ? batches.map((b): UpsertParts => ({ files: b.files, rewrites: [], deletes: [], removes: [], keys: [], base: null, ...b.upsert })) : [];
    try {
      await t.writer.commit(
        u ? 'overwrite' : 'append',
        properties,
        batches.flatMap((b) => b.files),
        async (meta) => {
          // A retried attempt whose predecessor did land (e.g. a lost REST response) must not add the files twice.
          // Only this member's snapshots: another member's seqs are its own numbering.
          if (committedSeq(meta, this.ctx.pipeline, this.def.name, this.ctx.member) >= top.seq) throw new AlreadyCommitted();
          if (!u) return { replaced: new Set<string>() };
          const planned = await u.plan(parts, meta);
          if (u.relocatedKeys > 0 && !this.relocationWarned) {
            // Scaled out, the other members' commits move the table before nearly every commit:
            // said once per run instead of at every commit.
            const members = this.ctx.member !== null;
            this.relocationWarned = members;
            this.ctx.warn(
              `Iceberg sink '${this.def.name}': table ${this.spec.table} changed since checkpoint ${batches[0]!.seq} (another writer committed); ${u.relocatedKeys} keys located again in its current state` +
                (members ? ' (with several members writing the table this is expected at most commits; not repeated)' : ''),
            );
          }
          return planned;
        },
      );
      // Only after our own successful commit is it known which files it left out.
      u?.removeUncommitted(parts);
      this.countCommitted(batches.flatMap((b) => b.files));
    } catch (e) {
      if (!(e instanceof AlreadyCommitted)) throw e instanceof IcebergSinkError ? e : this.label.error('commit failed', e);
    }
    if (crashHere && this.crashAt === 'after-table-commit') process.kill(process.pid, 'SIGKILL');
    this.pending = this.pending.filter((b) => b.seq > top.seq);
    // The next batch is computed against the table as it is after this commit.
    u?.resetWindow();
    this.lastTableCommit = Date.now();
  }

  private countCommitted(files: DataFile[]): void {
    this.committedFiles += files.length;
    this.committedSmallFiles += files.filter((f) => f.fileSizeInBytes < this.spec.targetFileSizeBytes * SMALL_FILE_FRACTION).length;
  }

  counters(): Record<string, { help: string; value: number }> {
    return {
      pipec_iceberg_data_files_committed_total: { help: 'Data files the sink committed to its Iceberg table.', value: this.committedFiles },
      pipec_iceberg_small_data_files_committed_total: {
        help: `Committed data files smaller than ${SMALL_FILE_FRACTION * 100} % of the table's target file size.`,
        value: this.committedSmallFiles,
      },
    };
  }

  async close(): Promise<void> {
    if (!this.ready) return;
    try {
      await this.ready.catch(() => undefined);
      if (this.failure) {
        if (this.reported) return;
        throw this.failure;
      }
      // With checkpoints, only what a durable checkpoint recorded may be published: anything
      // newer is replayed from the last checkpoint by the next run.
      const publishable = this.ctx.checkpointDir !== null ? this.pending.filter((b) => b.seq <= this.durableSeq) : this.pending;
      await this.publish(publishable);
    } finally {
      await this.table?.catalog.close().catch(() => undefined);
    }
  }
}
