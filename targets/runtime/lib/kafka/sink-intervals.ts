// The exactly-once Kafka sink's interval files: the messages of one checkpoint interval,
// written durably before the checkpoint that references them, so a restarted run can publish
// an interval whose transaction never committed. One NDJSON line per message, `[key, value]`
// (strings or null; a null value is a tombstone). They live under the checkpoint directory
// and are deleted once their transaction committed.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { fsyncDir } from '../io/sinks.ts';

export interface KeyValue {
  key: string | null;
  value: string | null;
}

/** Bytes per write() call: bounded so a large interval is not one huge string. */
const WRITE_CHUNK = 1 << 20;

export class IntervalFiles {
  /** `sub` is the sink's folder inside the checkpoint dir, e.g. `kafka-sink-out`. */
  constructor(
    readonly checkpointDir: string,
    readonly sub: string,
  ) {}

  private get dir(): string {
    return path.join(this.checkpointDir, this.sub);
  }

  /** Writes and fsyncs interval `seq`; returns its name relative to the checkpoint dir. */
  write(seq: number, messages: KeyValue[]): string {
    fs.mkdirSync(this.dir, { recursive: true });
    const rel = path.join(this.sub, `interval-${String(seq).padStart(8, '0')}.ndjson`);
    // 'w': a crashed earlier attempt may have left a file of the same number behind.
    const fd = fs.openSync(path.join(this.checkpointDir, rel), 'w');
    try {
      let buf: string[] = [];
      let size = 0;
      const put = (): void => {
        fs.writeSync(fd, buf.join(''));
        buf = [];
        size = 0;
      };
      for (const m of messages) {
        const line = JSON.stringify([m.key, m.value]) + '\n';
        buf.push(line);
        size += line.length;
        if (size >= WRITE_CHUNK) put();
      }
      if (buf.length > 0) put();
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fsyncDir(this.dir);
    return rel;
  }

  path(rel: string): string {
    return path.join(this.checkpointDir, rel);
  }

  exists(rel: string): boolean {
    return fs.existsSync(this.path(rel));
  }

  /** Reads an interval back in chunks of at most `chunk` messages. */
  async *read(rel: string, chunk: number): AsyncGenerator<KeyValue[]> {
    const file = this.path(rel);
    const lines = readline.createInterface({ input: fs.createReadStream(file, 'utf8'), crlfDelay: Infinity });
    let out: KeyValue[] = [];
    for await (const line of lines) {
      if (line === '') continue;
      const [key, value] = JSON.parse(line) as [string | null, string | null];
      out.push({ key, value });
      if (out.length >= chunk) {
        yield out;
        out = [];
      }
    }
    if (out.length > 0) yield out;
  }

  /** Deletes every interval file except `keep` (relative name, or null for none). */
  removeAllBut(keep: string | null): void {
    if (!fs.existsSync(this.dir)) return;
    for (const f of fs.readdirSync(this.dir)) {
      if (keep !== null && path.join(this.sub, f) === path.normalize(keep)) continue;
      if (/^interval-\d+\.ndjson$/.test(f)) fs.rmSync(path.join(this.dir, f), { force: true });
    }
  }
}
