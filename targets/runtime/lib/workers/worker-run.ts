// One worker thread of `pipec run --workers N`: it runs the same generated definition as every
// other worker, reads only the source partitions dealt to it (decode and the stateless operators
// run here, in parallel), and holds the share of every window aggregate's keys that hash to it
// (exchange.ts moves rows and watermarks between the workers). Sink rows and dead letters go to
// the main thread (coordinator.ts), which owns the sinks and the checkpoint; at a barrier the
// worker aligns with the others through the exchange, then sends its state and waits.
import type { MessagePort } from 'node:worker_threads';
import type { Row, StatefulOp } from '../ops/types.ts';
import { WindowAggOp, type WindowAggConfig } from '../ops/window-agg.ts';
import { SessionAggOp, type SessionAggConfig } from '../ops/session-agg.ts';
import { GroupAggOp, type GroupAggConfig } from '../ops/group-agg.ts';
import { IntervalJoinOp, type IntervalJoinConfig } from '../ops/interval-join.ts';
import { dropsLate } from '../operator-builders.ts';
import { SourceClock } from '../watermarks.ts';
import { formatTable, type ConnectorContext } from '../connectors.ts';
import { guardDecode } from '../io/guarded-decode.ts';
import type { RunningSink } from '../io/sinks.ts';
import type { Builders, Instance, PipelineDef } from '../pipeline-types.ts';
import { WatermarkGraph } from '../watermark-graph.ts';
import { createSource } from '../connector-lifecycle.ts';
import { sourceWatermark, wireSource, type SourceRt } from '../source-runtime.ts';
import { Exchange, type ExchangedOp } from './exchange.ts';
import { LineBatches, OUT_SLOTS } from './line-batch.ts';
import { clockShare, OPERATOR_STATE, type ClockSnapshot, type FilePositions } from './state-share.ts';
import type { FromWorker, ToWorker, WorkerData } from './protocol.ts';

/** The stateful operators partitioned by key over the workers (their state splits by key). */
type PartitionedOp = WindowAggOp | SessionAggOp | GroupAggOp | IntervalJoinOp;

const BATCH = 512;
/** Sink rows per message to the main thread. */
const OUT_ROWS = 4096;
/** Messages to the main thread in flight before the worker stops reading its sources. */
const MAX_OUT_IN_FLIGHT = 16;

export async function runWorker(def: PipelineDef, data: WorkerData, parent: MessagePort): Promise<void> {
  try {
    await new WorkerRun(def, data, parent).run();
  } catch (e) {
    parent.postMessage({ t: 'failed', message: (e as Error)?.message ?? String(e) } satisfies FromWorker);
  } finally {
    // Open ports would keep the thread alive: after the last barrier nothing more crosses them.
    for (const p of data.peers) p?.close();
    parent.unref();
  }
}

class WorkerRun {
  private readonly srcs: SourceRt[] = [];
  /** The partitioned operators' real instances here, with their kind (how their state splits). */
  private readonly real: PartitionedOp[] = [];
  private readonly realKind: (keyof typeof OPERATOR_STATE)[] = [];
  /** What the exchange feeds, by its operator index: a one-input operator itself, or one side of a join. */
  private readonly exchangeInputs: ExchangedOp[] = [];
  private readonly late = new Map<string, number>();
  private readonly owned: Map<string, Set<string>>;
  private readonly exchange: Exchange;
  private readonly instance: Instance;
  private readonly graph: WatermarkGraph;
  private readonly control: ToWorker[] = [];
  private controlWait: (() => void) | null = null;
  private sinkOut = new Map<string, Row[]>();
  /** The encoded sinks' lines for the next message (null when no sink is encoded here). */
  private readonly linesOut: LineBatches | null;
  private outRows = 0;
  private dead: string[] = [];
  private sentOut = 0;
  private readonly taken: Int32Array;
  private batchNow = Date.now();
  private wmDirty = false;

  constructor(
    private readonly def: PipelineDef,
    private readonly data: WorkerData,
    private readonly parent: MessagePort,
  ) {
    this.taken = new Int32Array(data.taken);
    const takenByMain = data.n * data.n + data.index;
    this.linesOut = data.lineRing && new LineBatches(data.lineRing, () => this.sentOut, () => this.sentOut - Atomics.load(this.taken, takenByMain) < OUT_SLOTS);
    this.owned = new Map(Object.entries(data.shares).map(([id, byWorker]) => [id, new Set(byWorker[data.index])]));
    parent.on('message', (m: ToWorker) => {
      this.control.push(m);
      const wake = this.controlWait;
      this.controlWait = null;
      wake?.();
    });
    const keyOf: ((row: Row) => unknown)[] = [];
    const exchangeOf = (): Exchange => this.exchange;
    const opCtx = {
      late: (opId: string, row: Row, lateBy: number): void => {
        this.late.set(opId, (this.late.get(opId) ?? 0) + 1);
        this.instance.late[opId]?.(row, lateBy);
      },
      now: (): number => Date.now(),
    };
    // A partitioned operator's inputs into the exchange: the operator itself, or for a join each
    // side (routed by that side's key, which equals the other side's for rows that match). Gives
    // each input's exchange index.
    const keep = (kind: keyof typeof OPERATOR_STATE, real: PartitionedOp, inputs: [ExchangedOp, (row: Row) => unknown][]): number[] => {
      this.real.push(real);
      this.realKind.push(kind);
      if (dropsLate(real)) this.late.set(real.id, 0); // late counters as one thread keeps them
      return inputs.map(([input, key]) => {
        keyOf.push(key);
        return this.exchangeInputs.push(input) - 1;
      });
    };
    // What the generated graph holds: rows and this worker's watermark go to the exchange.
    const proxy = (id: string, advance: (wm: number) => void) => ({ id, advance, snapshot: () => null, restore: () => {}, stateSize: () => 0 });
    const partitioned = (kind: keyof typeof OPERATOR_STATE, real: PartitionedOp & ExchangedOp, key: (row: Row) => unknown): StatefulOp & { push(row: Row): void } => {
      const [input] = keep(kind, real, [[real, key]]) as [number];
      return { ...proxy(real.id, (wm) => exchangeOf().ownWatermark(input, wm)), push: (row) => exchangeOf().route(input, row) };
    };
    // Both sides of a join hear the same watermarks (the join's, one per worker), so the
    // operator is advanced by either to the same minimum (advancing again is a no-op).
    const joined = (cfg: IntervalJoinConfig) => {
      const real = new IntervalJoinOp(cfg, opCtx);
      const advance = (w: number): void => real.advance(w);
      const [left, right] = keep('intervalJoin', real, [
        [{ push: (r) => real.pushLeft(r), advance }, cfg.leftKey],
        [{ push: (r) => real.pushRight(r), advance }, cfg.rightKey],
      ]) as [number, number];
      return {
        ...proxy(real.id, (wm) => {
          exchangeOf().ownWatermark(left, wm);
          exchangeOf().ownWatermark(right, wm);
        }),
        pushLeft: (row: Row) => exchangeOf().route(left, row),
        pushRight: (row: Row) => exchangeOf().route(right, row),
      };
    };
    const refuse = (what: string) => (cfg: { id: string }): never => {
      throw new Error(`operator '${cfg.id}' (${what}) cannot run with --workers > 1`);
    };
    const builders = {
      sink: (id: string) => this.sinkProxy(id),
      // Rows go to the worker owning their key: a window's group key; a session's PARTITION BY
      // key (its sessions merge only within that key).
      windowAgg: (cfg: WindowAggConfig) => partitioned('windowAgg', new WindowAggOp(cfg, opCtx), cfg.fns.keyOf),
      sessionAgg: (cfg: SessionAggConfig) => partitioned('sessionAgg', new SessionAggOp(cfg, opCtx), cfg.partitionOf ?? cfg.fns.keyOf),
      // A GROUP BY's changelog of one key comes from one worker, in order: per key, the sinks
      // see the order of one thread.
      groupAgg: (cfg: GroupAggConfig) => partitioned('groupAgg', new GroupAggOp({ ...cfg, now: opCtx.now }), cfg.fns.keyOf),
      intervalJoin: joined,
      normalize: refuse('changelog normalize'),
      temporalJoin: refuse('temporal join'),
    } as unknown as Builders;
    this.instance = def.instantiate(builders);
    this.exchange = new Exchange(data.n, data.index, data.peers, this.exchangeInputs, keyOf, data.taken);
    const ctx = this.connectorContext();
    for (const generated of def.sources) {
      const sdef = generated.decode ? { ...generated, decode: guardDecode(generated.decode) } : generated;
      const rt = wireSource(sdef, new SourceClock(sdef.delayMs, sdef.idleTimeoutMs), this.instance.emit[sdef.id]!, {
        now: () => Date.now(),
        batchNow: () => this.batchNow,
        handOver: () => null,
        propagate: () => this.propagate(),
        markDirty: () => {
          this.wmDirty = true;
        },
        deadLetter: (line) => void this.dead.push(line),
        warn: (message) => this.post({ t: 'warn', message }),
      });
      rt.src = createSource(def, sdef, rt.out, ctx, undefined);
      this.srcs.push(rt);
    }
    const bySource = new Map(this.srcs.map((s) => [s.id, s]));
    // A source with no partition here (fewer files than workers) holds nothing back once read.
    this.graph = new WatermarkGraph(this.instance.graph, (id) => {
      const s = bySource.get(id)!;
      return () => (s.src.finished ? Number.POSITIVE_INFINITY : sourceWatermark(s));
    });
  }

  private connectorContext(): ConnectorContext {
    const { def, data } = this;
    return {
      baseDir: data.baseDir,
      env: data.env,
      stdout: () => {},
      pipeline: def.name,
      sourcePositions: () => ({}),
      warn: (message) => this.post({ t: 'warn', message }),
      requestCheckpoint: () => {},
      checkpointDir: null,
      member: null,
      formats: formatTable(def.modules),
      ownsPartition: (sourceId, partition) => this.owns(sourceId, partition),
    };
  }

  /** Dealt out by the main thread; a file that appeared since is this worker's by its name's hash. */
  private owns(sourceId: string, partition: string): boolean {
    const dealt = this.data.shares[sourceId];
    if (!dealt) return true;
    if (this.owned.get(sourceId)!.has(partition)) return true;
    if (dealt.some((files) => files.includes(partition))) return false;
    let h = 0;
    for (let i = 0; i < partition.length; i++) h = (Math.imul(h, 31) + partition.charCodeAt(i)) | 0;
    return (h >>> 0) % this.data.n === this.data.index;
  }

  /** A sink as the generated graph sees it in a worker: its rows are batched for the main thread. */
  private sinkProxy(id: string): RunningSink {
    const sdef = this.def.sinks.find((s) => s.id === id)!;
    const encoded = this.data.encoded.includes(id);
    const json = sdef.json;
    const proxy: RunningSink = {
      def: { ...sdef },
      rowsOut: 0,
      write: (row) => {
        if (encoded) {
          const slotFull = this.linesOut!.add(id, json(row));
          if (++this.outRows >= OUT_ROWS || slotFull) this.sendOut();
          return;
        }
        let rows = this.sinkOut.get(id);
        if (rows === undefined) this.sinkOut.set(id, (rows = []));
        rows.push(row);
        if (++this.outRows >= OUT_ROWS) this.sendOut();
      },
      flush: () => {},
      commit: async () => null,
      open: () => {},
      close: async () => {},
    };
    return proxy;
  }

  private post(m: FromWorker): void {
    this.parent.postMessage(m);
  }

  private sendOut(): void {
    if (this.outRows === 0 && this.dead.length === 0) return;
    // Encoded here, in parallel, into bytes shared with the main thread, which only writes them.
    const { lines, moved } = this.linesOut?.take() ?? { lines: [], moved: [] };
    this.parent.postMessage({ t: 'out', sinks: [...this.sinkOut], lines, dead: this.dead } satisfies FromWorker, moved);
    this.sinkOut = new Map();
    this.outRows = 0;
    this.dead = [];
    this.sentOut++;
  }

  private propagate(): void {
    this.wmDirty = false;
    this.graph.propagate();
  }

  private restore(): void {
    const r = this.data.resume;
    if (!r) return;
    const now = Date.now();
    for (const s of this.srcs) {
      const st = r.sources[s.id];
      if (!st) continue;
      s.src.seek(st.position);
      s.clock.restore(clockShare(st.clock as ClockSnapshot, (p) => this.owns(s.id, p)), now);
    }
    this.real.forEach((op, i) => {
      const st = r.operators[op.id];
      if (st !== undefined) op.restore(OPERATOR_STATE[this.realKind[i]!].share(st, this.data.index, this.data.n));
    });
    this.graph.seedScans();
  }

  private nextControl(): Promise<ToWorker> {
    const m = this.control.shift();
    if (m) return Promise.resolve(m);
    return new Promise((done) => {
      this.controlWait = () => done(this.control.shift()!);
    });
  }

  private get congested(): boolean {
    return this.exchange.congested || this.sentOut - Atomics.load(this.taken, this.data.n * this.data.n + this.data.index) >= MAX_OUT_IN_FLIGHT;
  }

  async run(): Promise<void> {
    this.restore();
    this.propagate();
    this.post({ t: 'ready' });
    while ((await this.nextControl()).t !== 'go');
    let ended = false;
    let reportedEnd = false;
    let lastTick = 0;
    for (;;) {
      const c = this.control.shift();
      if (c !== undefined) {
        if (c.t !== 'barrier') continue;
        if ((await this.barrier(c.seq)) === 'exit') break;
        continue;
      }
      let produced = 0;
      if (!ended && !this.congested) {
        this.batchNow = Date.now();
        for (const s of this.srcs) if (!s.src.finished) produced += await s.src.poll(BATCH);
        const t = Date.now();
        if (t - lastTick >= 50) {
          lastTick = t;
          for (const s of this.srcs) if (s.clock.tick(t)) this.wmDirty = true;
          for (const op of this.real as StatefulOp[]) op.tick?.(t); // state TTL (processing time)
        }
        if (this.srcs.every((s) => s.src.finished)) {
          // End of this worker's input: its watermark moves to the end of time.
          for (const s of this.srcs) s.clock.wm = Number.POSITIVE_INFINITY;
          ended = true;
          this.wmDirty = true;
        }
        if (this.wmDirty) this.propagate();
      }
      this.exchange.flush();
      this.sendOut();
      if (ended && !reportedEnd && this.exchange.allEnded) {
        reportedEnd = true;
        this.post({ t: 'ended' });
      }
      if (produced === 0) await new Promise((r) => setTimeout(r, 1));
      else await new Promise((r) => setImmediate(r));
    }
    for (const s of this.srcs) await s.src.close();
  }

  /** Aligns with the other workers, sends this worker's state, and waits for the main thread's word. */
  private async barrier(seq: number): Promise<'resume' | 'exit'> {
    await this.exchange.align(seq);
    this.sendOut();
    const sources: Record<string, { position: unknown; clock: unknown; records: number; dead: number }> = {};
    for (const s of this.srcs) {
      // Only the files this worker reads: a resumed position of another's file is not its word.
      const pos = Object.fromEntries(Object.entries(s.src.position() as FilePositions).filter(([p]) => this.owns(s.id, p)));
      sources[s.id] = { position: pos, clock: s.clock.snapshot(), records: s.records, dead: s.dead };
    }
    this.post({
      t: 'snapshot',
      seq,
      sources,
      operators: Object.fromEntries(this.real.map((op) => [op.id, op.snapshot()])),
      late: Object.fromEntries(this.late),
    });
    for (;;) {
      const m = await this.nextControl();
      if (m.t === 'resume' || m.t === 'exit') return m.t;
    }
  }
}
