// The `file` source: a glob of NDJSON, CSV or Parquet files; each matched file is one
// partition (own watermark). Bounded unless `follow`, which tails new lines and new files.
// Positions: byte offset + line (NDJSON), records read (CSV, Parquet).
import { fileSourceConfig } from './resolved-configs.ts';
import type { FileSourceConfig } from '../config/file/config.ts';
import { open, type FileHandle } from 'node:fs/promises';
import { createReadStream, statSync } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import * as path from 'node:path';
import { glob } from 'tinyglobby';
import { parse as csvParse, type Parser } from 'csv-parse';
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from 'hyparquet';
import type { Row } from '../ops/types.ts';
import { META, type Coordinates, type DecodeError, type RunningSource, type SourceDef, type SourceSink } from './source-types.ts';
import { decodeReason } from './guarded-decode.ts';
import { RowBatch } from './row-batch.ts';
import { Utf8Scanner } from './utf8-check.ts';
import { JsonFieldReader, NOT_TAKEN, timestampColumns } from '../formats/json-fields.ts';

/** A file source that cannot start: its message names the source and the path. */
export class FileSourceError extends Error {}

const GLOB_CHARS = /[*?[\]{}]/;

function noMatchMessage(source: string, pattern: string, abs: string): string {
  const where = pattern === abs ? `'${pattern}'` : `'${pattern}' (${abs})`;
  if (!GLOB_CHARS.test(pattern)) {
    let isDir = false;
    try {
      isDir = statSync(abs).isDirectory();
    } catch {
      // absent: said below
    }
    if (isDir) return `source '${source}': path ${where} is a folder; give a glob such as '${pattern.replace(/\/$/, '')}/*.ndjson'`;
    return `source '${source}': file ${where} does not exist (set allow_empty = 'true' to run with no input)`;
  }
  return `source '${source}': no file matches ${where} (set allow_empty = 'true' to run with no input)`;
}

/** The files a file source's path matches now, absolute and sorted. */
export async function matchFiles(def: SourceDef, baseDir: string): Promise<string[]> {
  const pattern = fileSourceConfig(def).path;
  const abs = path.isAbsolute(pattern) ? pattern : path.join(baseDir, pattern);
  return (await glob(abs.split(path.sep).join('/'), { absolute: true, onlyFiles: true })).sort();
}

/** A matched file as the source names its partition: relative to the spec's folder, with '/'. */
export const partitionName = (file: string, baseDir: string): string => path.relative(baseDir, file).split(path.sep).join('/');

interface PartReader {
  file: string;
  rel: string;
  p: number;
  done: boolean;
  /** NDJSON: byte offset after the last processed line; CSV/Parquet: records consumed. */
  offset: number;
  line: number;
  read(budget: number): Promise<number>;
  close(): Promise<void>;
}

export class FileSource implements RunningSource {
  readonly bounded: boolean;
  /** The resolved path, format, follow and allow_empty (resolved-configs.ts). */
  readonly config: FileSourceConfig;
  private readers: PartReader[] = [];
  private readonly seen = new Set<string>();
  private resume = new Map<string, { offset: number; line: number }>();
  private lastGlob = 0;
  private started = false;
  private readonly err: DecodeError = { column: '', reason: '' };

  constructor(
    readonly def: SourceDef,
    private readonly baseDir: string,
    private readonly out: SourceSink,
    /** `pipec run --workers N`: the files (relative paths) this worker reads; absent: all. */
    private readonly owns?: (rel: string) => boolean,
  ) {
    this.config = fileSourceConfig(def);
    this.bounded = !this.config.follow;
  }

  get finished(): boolean {
    return this.bounded && this.started && this.readers.every((r) => r.done);
  }

  private async discover(): Promise<void> {
    const pattern = this.config.path;
    const abs = path.isAbsolute(pattern) ? pattern : path.join(this.baseDir, pattern);
    const files = await matchFiles(this.def, this.baseDir);
    if (files.length === 0 && !this.started) {
      // A bounded source with no input is an error, never a silent empty run (docs/language-
      // decisions.md): `allow_empty = 'true'` opts in; `follow` waits for files to appear.
      if (this.bounded && !this.config.allowEmpty) throw new FileSourceError(noMatchMessage(this.def.name, pattern, abs));
      this.out.warn(`no file matches '${pattern}'${this.bounded ? '; the source is empty (allow_empty)' : '; waiting for files to appear'}`);
    }
    // Files open once these are: what each new reader's buffer is sized by.
    const open = this.readers.length + files.filter((f) => !this.seen.has(f)).length;
    for (const f of files) {
      if (this.seen.has(f)) continue;
      this.seen.add(f);
      const rel = partitionName(f, this.baseDir);
      if (this.owns && !this.owns(rel)) continue;
      const p = this.out.partitionAdded(rel);
      const r = this.makeReader(f, rel, p, open);
      const pos = this.resume.get(rel);
      if (pos) {
        r.offset = pos.offset;
        r.line = pos.line;
      }
      this.readers.push(r);
    }
  }

  private makeReader(file: string, rel: string, p: number, open: number): PartReader {
    switch (this.config.format) {
      case 'csv':
        return new CsvReader(file, rel, p, this.def, this.out, this.err);
      case 'parquet':
        return new ParquetReader(file, rel, p, this.def, this.out, this.err);
      default:
        return new NdjsonReader(file, rel, p, this.def, this.out, this.err, !this.bounded, readChunkBytes(open));
    }
  }

  async poll(budget: number): Promise<number> {
    const now = Date.now();
    if (!this.started || (!this.bounded && now - this.lastGlob > 1000)) {
      this.lastGlob = now;
      await this.discover();
      this.started = true;
    }
    let n = 0;
    for (const r of this.readers) {
      if (r.done) continue;
      n += await r.read(budget);
      if (r.done) this.out.partitionDone(r.p);
    }
    return n;
  }

  position(): unknown {
    const pos: Record<string, { offset: number; line: number }> = {};
    for (const [rel, x] of this.resume) pos[rel] = x;
    for (const r of this.readers) pos[r.rel] = { offset: r.offset, line: r.line };
    return pos;
  }

  seek(pos: unknown): void {
    this.resume = new Map(Object.entries(pos as Record<string, { offset: number; line: number }>));
  }

  async close(): Promise<void> {
    for (const r of this.readers) await r.close();
  }
}

const NL = 10;

/**
 * An NDJSON file's read size, with `files` files open in the source: 1 MiB for one file (each
 * read is a trip through the thread pool: at 64 KiB they cost ~0.1 s of CPU and a fifth of the
 * wall time per 160 MB), down to 64 KiB when there are many, so the source's buffers stay
 * within READ_BUFFERS_BYTES (every open file is read in turn, so every buffer is in use).
 */
export function readChunkBytes(files: number): number {
  return Math.min(MAX_READ_BYTES, Math.max(MIN_READ_BYTES, Math.floor(READ_BUFFERS_BYTES / files / MIN_READ_BYTES) * MIN_READ_BYTES));
}
const MIN_READ_BYTES = 1 << 16;
const MAX_READ_BYTES = 1 << 20;
const READ_BUFFERS_BYTES = 16 << 20;

class NdjsonReader implements PartReader {
  done = false;
  offset = 0;
  line = 0;
  private fh: FileHandle | null = null;
  /** Unprocessed bytes of the last read (a view of `chunk`). */
  private buf: Buffer = Buffer.alloc(0);
  /** File offset of buf[0]. */
  private bufAt = -1;
  /** Every line that lies wholly inside buf is valid UTF-8 (checked once per chunk). */
  private bufValid = false;
  /**
   * Earlier pieces (copies) of a line that continues in `buf`, with no newline in them. Joined
   * once when its newline arrives, so a line of N bytes costs O(N), not a concatenation per chunk.
   */
  private pieces: Buffer[] = [];
  private piecesLen = 0;
  private eof = false;
  /** The read buffer, made at the first read (chunkBytes: readChunkBytes). */
  private chunk: Buffer | null = null;
  private readonly withMeta: boolean;
  /** Reads only the decoder's fields of a line (null: the def does not say which it reads). */
  private readonly fields: JsonFieldReader | null;
  /** Decoded rows go to the runner a batch at a time (each remembers its line). */
  private readonly batch: RowBatch;

  constructor(
    readonly file: string,
    readonly rel: string,
    readonly p: number,
    private readonly def: SourceDef,
    private readonly out: SourceSink,
    private readonly err: DecodeError,
    private readonly follow: boolean,
    private readonly chunkBytes: number,
  ) {
    this.withMeta = def.columns.some((c) => c.meta !== undefined);
    this.batch = new RowBatch(out, p, (line) => ({ file: rel, line }));
    this.fields = def.reads === undefined ? null : new JsonFieldReader(def.reads, timestampColumns(def.columns));
  }

  async read(budget: number): Promise<number> {
    if (this.fh === null) this.fh = await open(this.file, 'r');
    if (this.bufAt < 0) this.bufAt = this.offset;
    const chunk = (this.chunk ??= Buffer.allocUnsafe(this.chunkBytes));
    let n = 0;
    let pos = 0;
    while (n < budget) {
      let nl = this.buf.indexOf(NL, pos);
      if (nl < 0) {
        // The rest of buf is part of a line: copy it aside (chunk is reused), read on.
        if (pos < this.buf.length) {
          this.pieces.push(Buffer.from(this.buf.subarray(pos)));
          this.piecesLen += this.buf.length - pos;
        }
        this.bufAt += this.buf.length;
        this.buf = chunk.subarray(0, 0);
        pos = 0;
        const { bytesRead } = await this.fh.read(chunk, 0, chunk.length, this.bufAt);
        if (bytesRead === 0) {
          this.eof = true;
          if (this.follow || this.piecesLen === 0) break;
          nl = 0; // a last line without a newline: all of it is in `pieces`
        } else {
          this.buf = chunk.subarray(0, bytesRead);
          // Lines wholly inside the chunk: after the end of a continued line, up to the last
          // newline. A newline is ASCII, so if that span is valid UTF-8 so is each of its lines.
          const from = this.pieces.length > 0 ? this.buf.indexOf(NL) + 1 : 0;
          const last = this.buf.lastIndexOf(NL);
          this.bufValid = last >= from && isUtf8(this.buf.subarray(from, last + 1));
          continue;
        }
      }
      let text: string;
      let valid: boolean;
      let start: number;
      if (this.pieces.length > 0) {
        const bytes = Buffer.concat([...this.pieces, this.buf.subarray(pos, nl)]);
        start = this.bufAt - this.piecesLen;
        valid = isUtf8(bytes);
        text = bytes.toString('utf8');
        this.pieces = [];
        this.piecesLen = 0;
      } else {
        start = this.bufAt + pos;
        valid = this.bufValid || isUtf8(this.buf.subarray(pos, nl));
        // The plan's fields straight from the bytes; anything the reader leaves is parsed whole below.
        const obj = valid && this.fields !== null ? this.fields.read(this.buf, pos, nl) : NOT_TAKEN;
        if (obj !== NOT_TAKEN) {
          const lineAt = pos;
          pos = Math.min(nl + 1, this.buf.length);
          this.line++;
          this.offset = this.bufAt + pos;
          if (!this.decodeObject(obj, start)) this.dead(decodeReason(this.err), this.buf.toString('utf8', lineAt, nl));
          n++;
          continue;
        }
        text = this.buf.toString('utf8', pos, nl);
      }
      pos = Math.min(nl + 1, this.buf.length);
      this.line++;
      this.offset = this.bufAt + pos;
      if (this.decodeLine(text, valid, start)) n++;
    }
    this.batch.flush();
    this.buf = this.buf.subarray(pos);
    this.bufAt += pos;
    if (this.eof && !this.follow && this.buf.length === 0 && this.piecesLen === 0) this.done = true;
    this.eof = false;
    return n;
  }

  /** The current line's coordinates, built only for a dead letter (not one object per record). */
  private at(): Coordinates {
    return { file: this.rel, line: this.line };
  }

  /** Decodes one line (its text, whether its bytes were valid UTF-8, its file offset); false for a blank line. */
  private decodeLine(text: string, validUtf8: boolean, start: number): boolean {
    if (text.trim() === '') return false;
    this.decodeText(text, validUtf8, start);
    return true;
  }

  /** A dead letter for the current line, after the rows before it (the runner sees input order). */
  private dead(reason: string, text: string): null {
    this.batch.flush();
    this.out.dead(this.at(), reason, text);
    return null;
  }

  /** Parses a non-blank line whole: its row goes to the batch, or the line to the dead letters. */
  private decodeText(text: string, validUtf8: boolean, start: number): void {
    // Invalid UTF-8 would read as U+FFFD silently: the record is not the text it claims to be.
    if (!validUtf8) return void this.dead('not valid UTF-8', text);
    let obj: unknown;
    try {
      obj = JSON.parse(text);
    } catch (e) {
      return void this.dead(`not valid JSON: ${(e as Error).message}`, text);
    }
    if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) return void this.dead('not a JSON object', text);
    if (!this.decodeObject(obj as Record<string, unknown>, start)) this.dead(decodeReason(this.err), text);
  }

  /** Adds the row of a parsed line to the batch; false when the decoder refused it (the reason is in `err`). */
  private decodeObject(obj: Record<string, unknown>, start: number): boolean {
    if (this.withMeta) (obj as Record<symbol, unknown>)[META] = { file: this.rel, line: this.line, offset: start };
    const row = this.def.decode!(obj, this.err);
    if (row === null) return false;
    this.batch.add(row, this.line);
    return true;
  }

  async close(): Promise<void> {
    await this.fh?.close();
    this.fh = null;
  }
}

class CsvReader implements PartReader {
  done = false;
  offset = 0;
  line = 0;
  private it: AsyncIterator<{ record: string[]; info: { lines: number; bytes: number; raw?: string } }> | null = null;
  private parser: Parser | null = null;
  private skipped: { line: number; message: string; raw: string }[] = [];
  private header: string[] = [];
  /** Invalid UTF-8 offsets of the file; `nextBad` indexes the first not yet past. */
  private readonly utf8 = new Utf8Scanner();
  private nextBad = 0;
  private readonly batch: RowBatch;

  constructor(
    readonly file: string,
    readonly rel: string,
    readonly p: number,
    private readonly def: SourceDef,
    private readonly out: SourceSink,
    private readonly err: DecodeError,
  ) {
    this.batch = new RowBatch(out, p, (line) => ({ file: rel, line }));
  }

  /** A dead letter, after the rows before it (the runner sees input order). */
  private dead(line: number, reason: string, raw: string): void {
    this.batch.flush();
    this.out.dead({ file: this.rel, line }, reason, raw);
  }

  private start(): void {
    // Arrays, not objects: a row with the wrong number of fields is reported in input order.
    this.parser = csvParse({ info: true, raw: true, skip_empty_lines: true, relax_column_count: true, skip_records_with_error: true, bom: true });
    this.parser.on('skip', (e: Error & { lines?: number; raw?: string }) => this.skipped.push({ line: e.lines ?? 0, message: e.message, raw: e.raw ?? '' }));
    const stream = createReadStream(this.file);
    // Registered before the pipe: a chunk is scanned before the parser sees it.
    stream.on('data', (c) => this.utf8.push(c as Buffer));
    stream.on('end', () => this.utf8.end());
    stream.pipe(this.parser);
    this.it = this.parser[Symbol.asyncIterator]();
  }

  async read(budget: number): Promise<number> {
    if (this.it === null) {
      this.start();
      const first = await this.it!.next();
      if (first.done) {
        this.done = true;
        return 0;
      }
      this.header = first.value.record as unknown as string[];
      this.badBytes(first.value.info.bytes);
      // Resume: skip the records a checkpoint says were consumed (CSV has no safe byte seek
      // because quoted fields may span lines).
      for (let i = 0; i < this.offset; i++) if ((await this.it!.next()).done) break;
    }
    let n = 0;
    const decode = this.def.decode!;
    const header = this.header;
    while (n < budget) {
      const r = await this.it!.next();
      this.flushSkipped();
      if (r.done) {
        this.done = true;
        break;
      }
      n++;
      this.offset++;
      this.line = r.value.info.lines;
      const cells = r.value.record as unknown as string[];
      const raw = (r.value.info.raw ?? '').replace(/\r?\n$/, '');
      if (this.badBytes(r.value.info.bytes)) {
        this.dead(this.line, 'not valid UTF-8', raw);
        continue;
      }
      if (cells.length !== header.length) {
        this.dead(this.line, `malformed CSV record: ${cells.length} fields, the header has ${header.length}`, raw);
        continue;
      }
      const obj: Record<string | symbol, unknown> = {};
      for (let i = 0; i < header.length; i++) obj[header[i]!] = cells[i]!;
      obj[META] = { file: this.rel, line: this.line, offset: this.offset - 1 };
      const row = decode(obj, this.err);
      if (row === null) this.dead(this.line, decodeReason(this.err), raw);
      else this.batch.add(row, this.line);
    }
    this.batch.flush();
    return n;
  }

  /** True when invalid UTF-8 lies before file offset `end` (and after the previous record). */
  private badBytes(end: number): boolean {
    const bad = this.utf8.invalid;
    let found = false;
    while (this.nextBad < bad.length && bad[this.nextBad]! < end) {
      found = true;
      this.nextBad++;
    }
    return found;
  }

  private flushSkipped(): void {
    for (const s of this.skipped) this.dead(s.line, `malformed CSV record: ${s.message}`, s.raw);
    this.skipped = [];
  }

  async close(): Promise<void> {
    this.parser?.destroy();
  }
}

class ParquetReader implements PartReader {
  done = false;
  offset = 0;
  line = 0;
  private total = -1;
  private file_: Awaited<ReturnType<typeof asyncBufferFromFile>> | null = null;
  private meta: Awaited<ReturnType<typeof parquetMetadataAsync>> | null = null;
  private readonly batch: RowBatch;

  constructor(
    readonly file: string,
    readonly rel: string,
    readonly p: number,
    private readonly def: SourceDef,
    private readonly out: SourceSink,
    private readonly err: DecodeError,
  ) {
    this.batch = new RowBatch(out, p, (offset) => ({ partition: rel, offset }));
  }

  async read(budget: number): Promise<number> {
    if (this.file_ === null) {
      this.file_ = await this.parquet(() => asyncBufferFromFile(this.file));
      this.meta = await this.parquet(() => parquetMetadataAsync(this.file_!));
      this.total = Number(this.meta.num_rows);
    }
    if (this.offset >= this.total) {
      this.done = true;
      return 0;
    }
    const end = Math.min(this.total, this.offset + Math.max(budget, 1024));
    const names = new Set(this.meta!.schema.map((s) => s.name));
    const columns = this.def.columns.map((c) => c.name).filter((c) => names.has(c));
    const rows = await this.parquet(() => parquetReadObjects({ file: this.file_!, metadata: this.meta!, columns, rowStart: this.offset, rowEnd: end }));
    const decode = this.def.decode!;
    for (const obj of rows) {
      (obj as Record<symbol, unknown>)[META] = { file: this.rel, offset: this.offset };
      const row = decode(obj, this.err);
      if (row !== null) this.batch.add(row, this.offset);
      else {
        // The rows before it first: the runner sees rows and dead letters in input order.
        this.batch.flush();
        this.out.dead({ partition: this.rel, offset: this.offset }, decodeReason(this.err), safeJson(obj));
      }
      this.offset++;
    }
    this.batch.flush();
    this.line = this.offset;
    if (this.offset >= this.total) this.done = true;
    return rows.length;
  }

  /** A file that is no Parquet (or a damaged one) stops the source: the error says which source and file. */
  private async parquet<T>(read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (e) {
      throw new Error(`source '${this.def.name}': cannot read Parquet file ${this.rel}: ${(e as Error).message}`);
    }
  }

  async close(): Promise<void> {}
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x));
  } catch {
    return String(v);
  }
}
