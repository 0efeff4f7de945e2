// Sinks of the runtime: stdout (table or NDJSON), file (NDJSON or Parquet) and the
// dead-letter file. File sinks are exactly-once across crashes: NDJSON files are truncated
// back to the length recorded by the last checkpoint; Parquet part files are written
// (tmp + fsync + rename) only at checkpoints and at the end, and parts newer than the
// checkpoint are deleted on restart. Before resuming, a file sink checks that its output still
// holds what the checkpoint recorded (the file is there, at least as long, the bytes before
// the checkpointed end unchanged; every Parquet part there, of the recorded total size) and
// refuses to resume otherwise (OutputMismatchError): truncating a shorter file "back" to the
// checkpointed length would pad it with NUL bytes and lose the rows that were in it.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { opColumnName, rowKind, type Row } from '../ops/types.ts';
import type { ColumnDef } from './source-types.ts';
import { formatDecimal } from '../values.ts';
import { fileSinkConfig, stdoutSinkConfig } from './resolved-configs.ts';
import type { IcebergSinkSpec } from '../iceberg/spec.ts';
import type { SinkConfig } from '../config/config-types.ts';

export interface SinkDef {
  id: string;
  name: string;
  connector: string;
  options: Record<string, string>;
  /**
   * The resolved configuration the compiler decided (the physical plan's, `${VAR}` already
   * substituted): connectors read it instead of applying defaults of their own. Absent only in
   * hand-made defs (tests), which every built-in connector refuses (tests resolve the options
   * first, test/support/resolved-config.ts); connectors registered by tests may ignore it.
   */
  config?: SinkConfig;
  columns: ColumnDef[];
  /** One JSON object per row (LANGUAGE.md value formats), without the newline. */
  json: (row: Row) => string;
  /** Display text per cell for table output (the row kind first for a non-append sink). */
  cells: (row: Row) => string[];
  /**
   * What the sink receives (set by generated code through `changelogSink`; absent = append):
   * `upsert` rows '+I' / '+U' / '-D' by `upsertKey`, and '-U' rows too (a '-U' is followed by
   * its key's '+U' unless a filter after a GROUP BY — e.g. HAVING — dropped it: then it deletes
   * the key, see `io/update-pairing.ts`); `retract` sinks write every row as a change. Each row's
   * kind is `rowKind(row)`. A non-append sink's `json` / `cells` already carry an `op` field / cell.
   */
  changelog?: 'append' | 'upsert' | 'retract';
  /** Key of the upsert stream (group keys, primary key), when the plan knows one. */
  upsertKey?: string[] | null;
  /** `connector = 'iceberg'`: the table, catalog and write settings (lib/iceberg/). */
  iceberg?: IcebergSinkSpec;
}

export interface RunningSink {
  readonly def: SinkDef;
  rowsOut: number;
  write(row: Row): void;
  /**
   * Rows already encoded as the sink's NDJSON lines (UTF-8, each ending in '\n'), `rows` of them:
   * with `pipec run --workers N` the workers encode in parallel (lib/workers/). Only sinks whose
   * output is `def.json(row)` lines have it. The bytes may be a view of memory the worker
   * reuses once the call returns (lib/workers/line-batch.ts): write or copy them before it does.
   */
  writeLines?(lines: Uint8Array, rows: number): void;
  /**
   * A stop was asked for: waits for a target that has not answered yet (a connect to a broker
   * that is down) end now, failing the checkpoint they hold up rather than the stop's deadline.
   */
  interrupt?(): void;
  /** Hands buffered rows to the OS (not durable): keeps a streaming run's output current. */
  flush(): void;
  /** Makes everything written so far durable; returns the progress a checkpoint records. */
  commit(): Promise<unknown>;
  /** Called once the checkpoint recording `commit()`'s progress is durable. */
  afterCheckpoint?(): Promise<void>;
  /** Called once before any write; `progress` is null on a fresh start. */
  open(progress: unknown): void;
  /**
   * The runner's start check, right after `open`: resolves once the sink's target is known to be
   * there (a ClickHouse table, a Kafka topic), rejects naming what is missing (and how to create
   * it). A run whose sink cannot write ends at start instead of after its first rows.
   */
  checkTarget?(): Promise<void>;
  /** Connector-specific counters (e.g. the Iceberg sink's committed data files), exported on `/metrics` with a `sink` label. */
  counters?(): Record<string, { help: string; value: number }>;
  close(): Promise<void>;
}

/** Marks a sink as fed by a changelog (generated code calls this before the sink opens). */
export function changelogSink(sink: RunningSink, changelog: 'upsert' | 'retract', upsertKey: string[] | null): RunningSink {
  sink.def.changelog = changelog;
  sink.def.upsertKey = upsertKey;
  return sink;
}

/**
 * What a keyed (upsert) sink does with a row taken alone: `upsert` writes the row as the key's
 * current value ('+I', '+U', and every row of an append stream), `delete` removes the key
 * ('-D': a Kafka tombstone, a ClickHouse `_is_deleted` row), `skip` for a '-U'. A '-U' alone
 * does not say what to do — followed by its '+U' it is an update, else its key is deleted (a
 * filter after a GROUP BY dropped the '+U'): the Kafka and ClickHouse sinks pair rows with
 * `UpdatePairing` (update-pairing.ts), which holds the '-U' until the next row or flush.
 */
export function upsertAction(row: Row): 'upsert' | 'delete' | 'skip' {
  const k = rowKind(row);
  return k === '-U' ? 'skip' : k === '-D' ? 'delete' : 'upsert';
}

export function fsyncDir(dir: string): void {
  try {
    const fd = fs.openSync(dir, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // Some filesystems refuse fsync on directories; the rename is still atomic.
  }
}

/** A sink's output no longer agrees with the checkpoint it would resume from (the message says how). */
export class OutputMismatchError extends Error {}

/** What a checkpoint records of a TruncatingFile: its durable length and a hash of the bytes just before it. */
export interface FileProgress {
  bytes: number;
  /** SHA-256 (hex, 32 digits) of the last TAIL_BYTES bytes before `bytes` (absent in older checkpoints). */
  tail?: string;
}

/** How much of a file's checkpointed prefix is compared on resume: cheap, and catches a replaced or rewritten file. */
const TAIL_BYTES = 4096;

/** The progress a checkpoint recorded for a file, checked: the checkpoint's shape check does not know sinks. */
export function fileProgress(progress: unknown, what: string): FileProgress {
  const p = progress as Partial<FileProgress> | null;
  if (p === null || typeof p !== 'object' || !Number.isSafeInteger(p.bytes) || (p.bytes as number) < 0 || (p.tail !== undefined && typeof p.tail !== 'string')) {
    throw new OutputMismatchError(`the checkpoint's entry for ${what} is ${JSON.stringify(progress)}, not {"bytes": <length>}`);
  }
  return p as FileProgress;
}

/**
 * A failed write as the user sees it: Node's messages for ENOSPC, EIO, ... name no file
 * (`ENOSPC: no space left on device, write`); this one says which file and what it is.
 */
export function writeError(what: string, file: string, e: unknown): Error {
  const x = e as NodeJS.ErrnoException;
  const why = x.code === 'ENOSPC' ? 'no space left on the device (ENOSPC)' : (x.message ?? String(e));
  return new Error(`cannot write ${what} ${file}: ${why}`);
}

/** Bytes a TruncatingFile gathers before it writes them (and at the latest when flushed). */
const WRITE_BUFFER_BYTES = 1 << 20;

/**
 * Characters of appended text gathered (concatenated, which V8 does without copying) before
 * they are encoded into the buffer in one call: a Buffer.write costs ~0.1–0.2 µs besides its
 * bytes, which per line was a tenth of a window query's CPU (q2: 3.2M lines; 3M such lines in a
 * microbenchmark: 0.71–1.13 s encoded one by one, 0.48–0.63 s gathered).
 */
const GATHER_CHARS = 32 * 1024;

/** Append-only text file whose durable length is what a checkpoint records. */
export class TruncatingFile {
  private fd = -1;
  private bytes = 0;
  /**
   * What was appended and not yet written, encoded (a gathered batch of lines at a time) into
   * one buffer reused for the whole run (made at the first append): no new Buffer per write.
   */
  private buf: Buffer | null = null;
  private used = 0;
  /** Appended text not yet encoded into `buf` (at most about GATHER_CHARS characters). */
  private gathered = '';
  private tailAt = -1;
  private tail = '';

  /** `what` names the file in write errors: 'the output file', 'the dead-letter file'. */
  constructor(
    readonly file: string,
    private readonly what = 'the output file',
  ) {}

  /**
   * Starts the file afresh (`bytes` null) or resumes it at `bytes`, dropping what was written
   * after that checkpoint. The file must be at least that long (see `mismatch`): it is never
   * extended.
   */
  open(bytes: number | null): void {
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    if (bytes === null) {
      this.fd = fs.openSync(this.file, 'w+');
      this.bytes = 0;
    } else {
      const size = fs.existsSync(this.file) ? fs.statSync(this.file).size : 0;
      if (size < bytes) throw new OutputMismatchError(`${this.file} holds ${size} bytes, fewer than the ${bytes} the checkpoint recorded`);
      this.fd = fs.openSync(this.file, fs.existsSync(this.file) ? 'r+' : 'w+');
      fs.ftruncateSync(this.fd, bytes);
      this.bytes = bytes;
    }
  }

  /** The file's current length, 0 when it does not exist. */
  size(): number {
    try {
      return fs.statSync(this.file).size;
    } catch {
      return 0;
    }
  }

  /** Why the file no longer holds what `p` recorded (gone, shorter, changed before `p.bytes`), or null when it does. */
  mismatch(p: FileProgress): string | null {
    let size: number;
    try {
      size = fs.statSync(this.file).size;
    } catch {
      return p.bytes === 0 ? null : `the file is gone; the checkpoint recorded ${p.bytes} bytes of it`;
    }
    if (size < p.bytes) return `the file holds ${size} bytes, fewer than the ${p.bytes} the checkpoint recorded (it was truncated or replaced)`;
    if (p.tail !== undefined && p.bytes > 0) {
      const fd = fs.openSync(this.file, 'r');
      try {
        if (hashBefore(fd, p.bytes) !== p.tail) return `its content before byte ${p.bytes} is not what the checkpoint recorded (it was modified or replaced)`;
      } finally {
        fs.closeSync(fd);
      }
    }
    return null;
  }

  append(text: string): void {
    this.gathered += text;
    if (this.gathered.length >= GATHER_CHARS) this.encodeGathered();
  }

  private encodeGathered(): void {
    const text = this.gathered;
    if (text.length === 0) return;
    this.gathered = '';
    const buf = (this.buf ??= Buffer.allocUnsafe(WRITE_BUFFER_BYTES));
    // A UTF-16 code unit takes at most 3 bytes of UTF-8: the text fits whole, or goes after a flush.
    if (this.used + text.length * 3 > buf.length) {
      this.flush();
      if (text.length * 3 > buf.length) {
        const whole = Buffer.from(text, 'utf8');
        this.write(whole, 0, whole.length);
        return;
      }
    }
    this.used += buf.write(text, this.used, 'utf8');
  }

  /** Bytes already encoded (after any pending text): written as they are. */
  appendBytes(bytes: Uint8Array): void {
    this.flush();
    this.write(bytes, 0, bytes.length);
  }

  flush(): void {
    this.encodeGathered();
    const n = this.used;
    if (n === 0) return;
    this.used = 0;
    this.write(this.buf!, 0, n);
  }

  private write(buf: Uint8Array, from: number, to: number): void {
    let off = from;
    try {
      while (off < to) off += fs.writeSync(this.fd, buf, off, to - off, this.bytes + off - from);
    } catch (e) {
      throw writeError(this.what, this.file, e);
    }
    this.bytes += to - from;
  }

  sync(): number {
    this.flush();
    try {
      fs.fsyncSync(this.fd);
    } catch (e) {
      throw writeError(this.what, this.file, e);
    }
    return this.bytes;
  }

  /** Makes the file durable and returns what a checkpoint records of it. */
  progress(): FileProgress {
    const bytes = this.sync();
    if (bytes === 0) return { bytes };
    if (this.tailAt !== bytes) {
      this.tail = hashBefore(this.fd, bytes);
      this.tailAt = bytes;
    }
    return { bytes, tail: this.tail };
  }

  close(): void {
    if (this.fd >= 0) {
      try {
        this.flush();
      } finally {
        fs.closeSync(this.fd);
        this.fd = -1;
      }
    }
  }
}

/** SHA-256 (32 hex digits) of the TAIL_BYTES bytes of `fd` before offset `end` (fewer at the start of a file). */
function hashBefore(fd: number, end: number): string {
  const n = Math.min(TAIL_BYTES, end);
  const buf = Buffer.alloc(n);
  let got = 0;
  while (got < n) {
    const r = fs.readSync(fd, buf, got, n - got, end - n + got);
    if (r === 0) break;
    got += r;
  }
  return createHash('sha256').update(buf.subarray(0, got)).digest('hex').slice(0, 32);
}

export class FileNdjsonSink implements RunningSink {
  rowsOut = 0;
  private readonly f: TruncatingFile;

  constructor(
    readonly def: SinkDef,
    baseDir: string,
  ) {
    this.f = new TruncatingFile(path.resolve(baseDir, fileSinkConfig(def).path));
  }

  open(progress: unknown): void {
    if (progress === null) return this.f.open(null);
    const p = fileProgress(progress, this.f.file);
    const why = this.f.mismatch(p);
    if (why !== null) throw new OutputMismatchError(`cannot resume ${this.f.file}: ${why}`);
    this.f.open(p.bytes);
  }

  write(row: Row): void {
    this.rowsOut++;
    this.f.append(this.def.json(row) + '\n');
  }

  writeLines(lines: Uint8Array, rows: number): void {
    this.rowsOut += rows;
    this.f.appendBytes(lines);
  }

  flush(): void {
    this.f.flush();
  }

  async commit(): Promise<unknown> {
    return this.f.progress();
  }

  async close(): Promise<void> {
    this.f.sync();
    this.f.close();
  }
}

export class ParquetSink implements RunningSink {
  rowsOut = 0;
  private rows: Row[] = [];
  private part = 0;
  /** Total size of the part files written so far (what a resume checks). */
  private bytes = 0;
  private readonly dir: string;

  constructor(
    readonly def: SinkDef,
    baseDir: string,
  ) {
    this.dir = path.resolve(baseDir, fileSinkConfig(def).path);
  }

  open(progress: unknown): void {
    fs.mkdirSync(this.dir, { recursive: true });
    this.part = progress === null ? 0 : this.resumable(progress);
    for (const f of fs.readdirSync(this.dir)) {
      const m = /^part-(\d+)\.parquet(\.tmp)?$/.exec(f);
      if (m && (m[2] !== undefined || Number(m[1]) >= this.part)) fs.rmSync(path.join(this.dir, f));
    }
  }

  /** The part to continue with, once every part the checkpoint recorded is there at the recorded total size. */
  private resumable(progress: unknown): number {
    const p = progress as { part?: unknown; bytes?: unknown } | null;
    const count = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) >= 0;
    if (p === null || typeof p !== 'object' || !count(p.part) || (p.bytes !== undefined && !count(p.bytes))) {
      throw new OutputMismatchError(`the checkpoint's entry for ${this.dir} is ${JSON.stringify(progress)}, not {"part": <next part>}`);
    }
    const part = p.part as number;
    const missing: string[] = [];
    let total = 0;
    for (let i = 0; i < part; i++) {
      try {
        total += fs.statSync(path.join(this.dir, partName(i))).size;
      } catch {
        missing.push(partName(i));
      }
    }
    const where = `cannot resume ${this.dir}`;
    if (missing.length > 0) {
      const list = missing.slice(0, 3).join(', ') + (missing.length > 3 ? ` and ${missing.length - 3} more` : '');
      throw new OutputMismatchError(`${where}: the checkpoint recorded ${part} part files, but ${list} ${missing.length === 1 ? 'is' : 'are'} gone`);
    }
    if (p.bytes !== undefined && total !== p.bytes) {
      throw new OutputMismatchError(`${where}: its ${part} part files hold ${total} bytes, not the ${p.bytes as number} the checkpoint recorded (a part was replaced or rewritten)`);
    }
    this.bytes = total;
    return part;
  }

  write(row: Row): void {
    this.rowsOut++;
    this.rows.push(row);
  }

  flush(): void {}

  async commit(): Promise<unknown> {
    if (this.rows.length > 0) {
      const name = partName(this.part);
      const buf = new Uint8Array(parquetWriteBuffer({ columnData: this.columnData() }));
      const tmp = path.join(this.dir, name + '.tmp');
      try {
        const fd = fs.openSync(tmp, 'w');
        try {
          fs.writeSync(fd, buf);
          fs.fsyncSync(fd);
        } finally {
          fs.closeSync(fd);
        }
        fs.renameSync(tmp, path.join(this.dir, name));
      } catch (e) {
        throw writeError('the Parquet file', path.join(this.dir, name), e);
      }
      fsyncDir(this.dir);
      this.part++;
      this.bytes += buf.length;
      this.rows = [];
    }
    return { part: this.part, bytes: this.bytes };
  }

  private columnData(): { name: string; data: unknown[]; type: any; nullable: boolean; encoding?: 'PLAIN' }[] {
    const cols = this.def.columns.map((c, i) => {
      const col = this.rows.map((r) => r[i] ?? null);
      switch (c.kind) {
        case 'boolean':
          // PLAIN (bit-packed) as parquet-mr writes: Spark's vectorised reader refuses the RLE the library picks past 16 rows.
          return { name: c.name, data: col, type: 'BOOLEAN', nullable: c.nullable, encoding: 'PLAIN' as const };
        case 'int':
          return { name: c.name, data: col, type: 'INT32', nullable: c.nullable };
        case 'bigint':
          return { name: c.name, data: col.map((v) => (v === null ? null : BigInt(v as number))), type: 'INT64', nullable: c.nullable };
        case 'float':
          return { name: c.name, data: col, type: 'FLOAT', nullable: c.nullable };
        case 'double':
          return { name: c.name, data: col, type: 'DOUBLE', nullable: c.nullable };
        case 'timestamp':
          return { name: c.name, data: col.map((v) => (v === null ? null : new Date(v as number))), type: 'TIMESTAMP', nullable: c.nullable };
        case 'decimal':
          // Exact text: no lossless DECIMAL writer path is exposed by the library for all precisions.
          return { name: c.name, data: col.map((v) => (v === null ? null : formatDecimal(v as number, c.scale ?? 0))), type: 'STRING', nullable: c.nullable };
        case 'string':
          return { name: c.name, data: col, type: 'STRING', nullable: c.nullable };
        case 'bytes':
          // The runtime carries BYTES as base64 text; the file holds the bytes.
          return { name: c.name, data: col.map((v) => (v === null ? null : new Uint8Array(Buffer.from(v as string, 'base64')))), type: 'BYTE_ARRAY', nullable: c.nullable };
        default:
          return { name: c.name, data: col.map((v) => (v === null ? null : JSON.stringify(v))), type: 'JSON', nullable: c.nullable };
      }
    });
    // A changelog sink's files carry each row's kind as a first STRING column, as NDJSON does.
    if ((this.def.changelog ?? 'append') !== 'append') cols.unshift({ name: opColumnName(this.def.columns), data: this.rows.map(rowKind), type: 'STRING', nullable: false });
    return cols;
  }

  async close(): Promise<void> {
    await this.commit();
  }
}

const partName = (i: number): string => `part-${String(i).padStart(5, '0')}.parquet`;

export class StdoutSink implements RunningSink {
  rowsOut = 0;
  private readonly table: boolean;
  private widths: number[] = [];
  private names: string[] = [];
  /** Left-aligned columns (strings and the row kind). */
  private left: boolean[] = [];
  private buf: string[] = [];
  private headerDone = false;

  constructor(
    readonly def: SinkDef,
    private readonly write_: (text: string) => void,
  ) {
    this.table = stdoutSinkConfig(def).format === 'table';
  }

  open(_progress: unknown): void {
    // A changelog sink shows each row's kind first (`op`: +I, -U, +U, -D), as Flink's SQL client does.
    const op = (this.def.changelog ?? 'append') !== 'append';
    const cols = this.def.columns;
    this.names = [...(op ? [opColumnName(cols)] : []), ...cols.map((c) => c.name)];
    this.widths = [...(op ? [this.names[0]!.length] : []), ...cols.map((c) => Math.max(c.name.length, displayWidth(c)))];
    this.left = [...(op ? [true] : []), ...cols.map((c) => c.kind === 'string')];
  }

  write(row: Row): void {
    this.rowsOut++;
    if (!this.table) {
      this.buf.push(this.def.json(row) + '\n');
    } else {
      if (!this.headerDone) {
        this.headerDone = true;
        const sep = '+' + this.widths.map((w) => '-'.repeat(w + 2)).join('+') + '+\n';
        this.buf.push(sep, '| ' + this.names.map((n, i) => n.padEnd(this.widths[i]!)).join(' | ') + ' |\n', sep);
      }
      const cells = this.def.cells(row);
      this.buf.push('| ' + cells.map((c, i) => (this.left[i] ? c.padEnd(this.widths[i]!) : c.padStart(this.widths[i]!))).join(' | ') + ' |\n');
    }
    if (this.buf.length > 256) this.flush();
  }

  flush(): void {
    if (this.buf.length) this.write_(this.buf.join(''));
    this.buf = [];
  }

  async commit(): Promise<unknown> {
    this.flush();
    return null;
  }

  async close(): Promise<void> {
    this.flush();
  }
}

function displayWidth(c: ColumnDef): number {
  switch (c.kind) {
    case 'timestamp':
      return 23;
    case 'decimal':
      return Math.min(20, (c.precision ?? 10) + 2);
    case 'bigint':
      return 8;
    case 'int':
      return 6;
    case 'string':
      return 10;
    default:
      return 6;
  }
}

/** Counts rows and keeps nothing (benchmarks). */
export class DiscardSink implements RunningSink {
  rowsOut = 0;
  constructor(readonly def: SinkDef) {}
  open(_progress: unknown): void {}
  write(_row: Row): void {
    this.rowsOut++;
  }
  flush(): void {}
  async commit(): Promise<unknown> {
    return null;
  }
  async close(): Promise<void> {}
}
