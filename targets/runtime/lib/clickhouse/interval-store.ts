// Exactly-once staging of the ClickHouse sink under the run's checkpoint dir
// (`clickhouse-sink-<id>/`):
//   interval-<seq>.ndjson  the interval's encoded JSONEachRow lines, appended while rows arrive
//                          and fsynced by commit(), before the checkpoint that names it;
//   interval-<seq>.done    one line per batch index whose INSERT the server acknowledged
//                          (fsynced after each), so a restart skips batches known to be in.
// Once every batch of an interval is in, its .ndjson is deleted; the .done file stays until a
// later checkpoint no longer names the interval.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { fsyncDir } from '../io/sinks.ts';

/** Bytes buffered before a write() to the interval file. */
const WRITE_CHUNK = 1 << 20;

const seqName = (seq: number): string => `interval-${String(seq).padStart(8, '0')}`;

export class IntervalStore {
  private fd: number | null = null;
  private buf: string[] = [];
  private bufBytes = 0;
  /** Lines appended to the open interval. */
  lines = 0;

  /** `sub` is the sink's folder inside the checkpoint dir, e.g. `clickhouse-sink-out`. */
  constructor(
    readonly checkpointDir: string,
    readonly sub: string,
  ) {}

  private get dir(): string {
    return path.join(this.checkpointDir, this.sub);
  }

  /** The interval file of `seq`, relative to the checkpoint dir. */
  relFile(seq: number): string {
    return path.join(this.sub, seqName(seq) + '.ndjson');
  }

  private doneFile(seq: number): string {
    return path.join(this.dir, seqName(seq) + '.done');
  }

  /** Appends encoded lines to interval `seq` (opened on the first line). */
  append(seq: number, lines: readonly string[]): void {
    if (lines.length === 0) return;
    if (this.fd === null) {
      fs.mkdirSync(this.dir, { recursive: true });
      // 'w': a run that crashed before its checkpoint may have left a file of this number.
      this.fd = fs.openSync(path.join(this.checkpointDir, this.relFile(seq)), 'w');
      // A stale done log of the same number would skip batches of the new content.
      fs.rmSync(this.doneFile(seq), { force: true });
    }
    for (const l of lines) {
      this.buf.push(l, '\n');
      this.bufBytes += l.length + 1;
    }
    this.lines += lines.length;
    if (this.bufBytes >= WRITE_CHUNK) this.writeBuf();
  }

  private writeBuf(): void {
    if (this.buf.length === 0) return;
    fs.writeSync(this.fd!, this.buf.join(''));
    this.buf = [];
    this.bufBytes = 0;
  }

  /** Makes the open interval durable; returns its relative name and line count (null: no lines). */
  seal(seq: number): { file: string; lines: number } | null {
    if (this.fd === null) return null;
    try {
      this.writeBuf();
      fs.fsyncSync(this.fd);
    } finally {
      fs.closeSync(this.fd);
      this.fd = null;
    }
    fsyncDir(this.dir);
    const lines = this.lines;
    this.lines = 0;
    return { file: this.relFile(seq), lines };
  }

  /** Drops the open interval (rows no checkpoint will name: the resumed run recomputes them). */
  discardOpen(): void {
    if (this.fd === null) return;
    fs.closeSync(this.fd);
    this.fd = null;
    this.buf = [];
    this.bufBytes = 0;
    this.lines = 0;
  }

  /** Batch indexes of interval `seq` the server acknowledged. */
  done(seq: number): Set<number> {
    const f = this.doneFile(seq);
    if (!fs.existsSync(f)) return new Set();
    return new Set(
      fs
        .readFileSync(f, 'utf8')
        .split('\n')
        .filter((l) => /^\d+$/.test(l))
        .map(Number),
    );
  }

  /** Records (durably) that batch `index` of interval `seq` is in the table. */
  markDone(seq: number, index: number): void {
    fs.mkdirSync(this.dir, { recursive: true });
    const fd = fs.openSync(this.doneFile(seq), 'a');
    try {
      fs.writeSync(fd, `${index}\n`);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  }

  exists(rel: string): boolean {
    return fs.existsSync(path.join(this.checkpointDir, rel));
  }

  /** The interval's lines in batches of `size`, in file order (the same cut on every read). */
  async *batches(rel: string, size: number): AsyncGenerator<string[]> {
    const file = path.join(this.checkpointDir, rel);
    const input = fs.createReadStream(file, 'utf8');
    const lines = readline.createInterface({ input, crlfDelay: Infinity });
    let out: string[] = [];
    try {
      for await (const line of lines) {
        if (line === '') continue;
        out.push(line);
        if (out.length >= size) {
          yield out;
          out = [];
        }
      }
      if (out.length > 0) yield out;
    } finally {
      lines.close();
      input.destroy();
    }
  }

  /** Deletes interval `seq`'s lines (all its batches are in the table). */
  removeLines(seq: number): void {
    fs.rmSync(path.join(this.checkpointDir, this.relFile(seq)), { force: true });
    fsyncDir(this.dir);
  }

  /** Deletes every interval file and done log except those of `keep` (null: none). */
  removeAllBut(keep: number | null): void {
    if (!fs.existsSync(this.dir)) return;
    const kept = keep === null ? null : seqName(keep);
    for (const f of fs.readdirSync(this.dir)) {
      const m = /^(interval-\d+)\.(ndjson|done)$/.exec(f);
      if (m && m[1] !== kept) fs.rmSync(path.join(this.dir, f), { force: true });
    }
  }
}
