// Test connectors of `pipec test` (src/test-runner/): a scripted source and a capturing sink,
// registered through the ordinary connector registry under the name `pipec-test`, so the runner,
// its operators and the generated module run exactly as under `pipec run`. A Script is the
// test's steps, shared by every scripted source of one run and kept across a crash and restart:
// its position is what the checkpoint records, and a restarted engine seeks to it, so the
// resume path under test is the runtime's own.
import type { Row, RowKind } from '../ops/types.ts';
import type { DecodeError, RunningSource, SourceDef, SourceSink } from '../io/source-types.ts';
import type { RunningSink, SinkDef } from '../io/sinks.ts';
import { META } from '../io/source-types.ts';
import { decodeReason } from '../io/guarded-decode.ts';
import { setRowKind } from '../ops/types.ts';
import { BAD, readBigint, readBoolean, readDate, readDecimal, readDouble, readFloat, readInt, readString, readTimestamp } from '../values.ts';
import { registerSink, registerSource } from '../connectors.ts';

export const TEST_CONNECTOR = 'pipec-test';
/** The option that names the run (a key of `runs`) in a rewritten source or sink definition. */
export const RUN_OPTION = 'pipec_test_run';

/** One step of a test, as the harness hands it over (values already in the test's form). */
export type ScriptStep =
  | { kind: 'rows'; source: string; partition: number; rows: ScriptRow[] }
  | { kind: 'watermark'; source: string; partition: number | null; at: number }
  | { kind: 'idle'; source: string; partition: number }
  | { kind: 'advance'; ms: number }
  | { kind: 'checkpoint' }
  | { kind: 'crash' }
  | { kind: 'end' };

/** One scripted record: its column values and the connector metadata around it. */
export interface ScriptRow {
  values: Record<string, unknown>;
  key?: unknown;
  offset?: number;
  op?: RowKind;
  /** Other connector metadata (`commit_ts` of a CDC change, a Kafka `timestamp`), epoch ms for times. */
  meta?: Record<string, unknown>;
}

/** A row a capture sink holds: the sink's own JSON text of it (what a file sink writes). */
export interface Captured {
  json: string;
}

/** State of one test run that outlives an engine: the script, the clock, the captured output. */
export class Script {
  /** Index of the next step. */
  next = 0;
  /** Set by the crash step: the harness builds the engine again from the last checkpoint. */
  crashed = false;
  ended = false;
  /**
   * Steps before this index ran already: a restarted engine re-reads their rows (the source
   * replays from the checkpoint's position) but processing time and crashes are the world's,
   * not the source's, and do not happen twice.
   */
  private reached = 0;
  /** Per sink name: rows in the order written; truncated to the committed count on resume. */
  readonly captured = new Map<string, Captured[]>();
  /** Per source name and partition: the next offset when a row gives none. */
  private readonly offsets = new Map<string, number>();
  readonly sources = new Map<string, ScriptedSource>();
  /** Called when the script runs out without `end of input`: the harness stops the engine. */
  onExhausted: () => void = () => {};

  constructor(
    readonly steps: ScriptStep[],
    /** Processing time (epoch ms), advanced only by steps. */
    public now: number,
    /** Partitions per source name. */
    readonly partitions: Map<string, number>,
  ) {}

  /**
   * A fresh engine: its sources register anew and read from the start of the script, as a
   * source without a checkpoint would; a resumed one seeks to the checkpoint's position.
   */
  reset(): void {
    this.sources.clear();
    this.crashed = false;
    this.next = 0;
    this.offsets.clear();
  }

  /**
   * Runs steps until one that the runner must act on between polls (a checkpoint, processing
   * time, a crash) or the end. Returns how many records it produced (at least 1 while steps
   * remain, so the runner does not sleep).
   */
  run(): number {
    let produced = 0;
    while (this.next < this.steps.length && !this.crashed && !this.ended) {
      const i = this.next;
      const s = this.steps[i]!;
      this.next++;
      const replay = i < this.reached;
      if (!replay) this.reached = i + 1;
      switch (s.kind) {
        case 'rows':
          produced += this.source(s.source).deliver(s.partition, s.rows, (p) => this.offsetFor(s.source, p));
          break;
        case 'watermark':
          this.source(s.source).watermark(s.partition, s.at);
          break;
        case 'idle':
          this.source(s.source).idle(s.partition);
          break;
        case 'advance':
          if (replay) break;
          this.now += s.ms;
          return produced + 1;
        case 'checkpoint':
          for (const src of this.sources.values()) src.requestCheckpoint();
          return produced + 1;
        case 'crash':
          if (replay) break;
          this.crashed = true;
          throw new SimulatedCrash();
        case 'end':
          this.ended = true;
          for (const src of this.sources.values()) src.end();
          return produced + 1;
      }
    }
    if (this.next >= this.steps.length && !this.ended) this.onExhausted();
    return produced + 1;
  }

  private offsetFor(source: string, p: number): number {
    const k = `${source}/${p}`;
    const n = this.offsets.get(k) ?? 0;
    this.offsets.set(k, n + 1);
    return n;
  }

  private source(name: string): ScriptedSource {
    const s = this.sources.get(name);
    if (!s) throw new Error(`the test names source '${name}', which the pipeline does not read`);
    return s;
  }

  /** A restarted engine replays from the checkpoint's step: offsets count again from there. */
  seek(step: number, offsets: Record<string, number>): void {
    this.next = step;
    this.offsets.clear();
    for (const [k, v] of Object.entries(offsets)) this.offsets.set(k, v);
  }

  positions(): { step: number; offsets: Record<string, number> } {
    return { step: this.next, offsets: Object.fromEntries(this.offsets) };
  }
}

/** Thrown by the crash step inside a poll: the engine fails as a killed process would, with no checkpoint. */
export class SimulatedCrash extends Error {
  constructor() {
    super('simulated crash (pipec test: crash and restart)');
  }
}

/** Runs by id: the connectors find their Script through the RUN_OPTION option. */
export const runs = new Map<string, Script>();

function scriptOf(options: Record<string, string>): Script {
  const s = runs.get(options[RUN_OPTION] ?? '');
  if (!s) throw new Error(`no pipec test run '${options[RUN_OPTION]}'`);
  return s;
}

/** A source fed by the script. Every scripted source of a run drives the same Script. */
export class ScriptedSource implements RunningSource {
  readonly bounded = true;
  private readonly parts: number[] = [];
  private readonly err: DecodeError = { column: '', reason: '' };
  private checkpointWanted: (() => void) | null = null;
  private done = false;

  constructor(
    readonly def: SourceDef,
    private readonly out: SourceSink,
    private readonly script: Script,
    requestCheckpoint: () => void,
  ) {
    this.checkpointWanted = requestCheckpoint;
    const n = script.partitions.get(def.name) ?? 1;
    for (let p = 0; p < n; p++) this.parts.push(out.partitionAdded(`${def.name}-${p}`));
    script.sources.set(def.name, this);
  }

  get finished(): boolean {
    return this.done;
  }

  async poll(): Promise<number> {
    // The first source polled runs the script for all; the others have nothing of their own.
    if (this.script.sources.values().next().value !== this) return 0;
    return this.script.run();
  }

  deliver(p: number, rows: ScriptRow[], nextOffset: (p: number) => number): number {
    const part = this.parts[p]!;
    for (const r of rows) {
      const offset = r.offset ?? nextOffset(p);
      const raw: Record<string | symbol, unknown> = { ...r.values };
      raw[META] = { kind: r.op ?? '+I', offset, partition: p, key: r.key ?? null, topic: this.def.options.topic ?? this.def.name, timestamp: null, commit_ts: null, ...r.meta };
      const row = this.def.decode ? this.def.decode(raw, this.err) : this.readPlain(raw);
      if (row === null) this.out.dead({ partition: String(p), offset }, decodeReason(this.err), JSON.stringify(r.values));
      else this.out.row(part, this.def.decode ? row : setRowKind(row, r.op ?? '+I'));
    }
    return rows.length;
  }

  /** Sources without a generated decoder (datagen make rows themselves): read each column by its type. */
  private readPlain(raw: Record<string, unknown>): Row | null {
    const row: unknown[] = [];
    for (const c of this.def.columns) {
      const v = readByKind(c.kind, raw[c.name], c.precision ?? 38, c.scale ?? 0);
      if (v === BAD || (v === null && !c.nullable)) {
        this.err.column = c.name;
        this.err.reason = v === BAD ? `expected a ${c.kind} value` : 'is NULL but declared NOT NULL';
        return null;
      }
      row.push(v);
    }
    return row as Row;
  }

  watermark(p: number | null, at: number): void {
    for (let i = 0; i < this.parts.length; i++) if (p === null || p === i) this.out.partitionWatermark?.(this.parts[i]!, at);
  }

  idle(p: number): void {
    this.out.partitionIdle?.(this.parts[p]!);
  }

  end(): void {
    this.done = true;
    for (const p of this.parts) this.out.partitionDone(p);
  }

  requestCheckpoint(): void {
    this.checkpointWanted?.();
  }

  position(): unknown {
    return this.script.positions();
  }

  seek(pos: unknown): void {
    const x = pos as { step: number; offsets: Record<string, number> };
    this.script.seek(x.step, x.offsets);
  }

  async close(): Promise<void> {}
}

function readByKind(kind: string, v: unknown, precision: number, scale: number): unknown {
  switch (kind) {
    case 'int':
    case 'smallint':
    case 'tinyint':
      return readInt(v);
    case 'bigint':
      return readBigint(v);
    case 'double':
      return readDouble(v);
    case 'float':
      return readFloat(v);
    case 'boolean':
      return readBoolean(v);
    case 'decimal':
      return readDecimal(v, precision, scale);
    case 'timestamp':
    case 'timestamp_ltz':
      return readTimestamp(v);
    case 'date':
      return readDate(v);
    default:
      return readString(v);
  }
}

/**
 * Captures what a sink receives, as the sink's own JSON text (with `op` for changelog sinks).
 * It behaves like a transactional sink: `commit` records how many rows are durable, and a
 * resumed `open` drops what was written after that (the rows the crashed engine never committed).
 */
export class CaptureSink implements RunningSink {
  rowsOut = 0;
  private readonly rows: Captured[];

  constructor(
    readonly def: SinkDef,
    script: Script,
  ) {
    let rows = script.captured.get(def.name);
    if (!rows) script.captured.set(def.name, (rows = []));
    this.rows = rows;
  }

  open(progress: unknown): void {
    const n = progress === null ? 0 : (progress as { rows: number }).rows;
    this.rows.length = Math.min(this.rows.length, n);
  }

  write(row: Row): void {
    this.rows.push({ json: this.def.json(row) });
    this.rowsOut++;
  }

  flush(): void {}

  async commit(): Promise<unknown> {
    return { rows: this.rows.length };
  }

  async close(): Promise<void> {}
}

registerSource(TEST_CONNECTOR, (def, out, ctx) => new ScriptedSource(def, out, scriptOf(def.options), () => ctx.requestCheckpoint()));
registerSink(TEST_CONNECTOR, (def) => new CaptureSink(def, scriptOf(def.options)));
