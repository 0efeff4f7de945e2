// The main thread of `pipec run --workers N`: it deals each file source's files out to N worker
// threads (worker-run.ts), owns the sinks, the dead-letter file and the checkpoint, and writes
// what the workers send. A checkpoint is aligned: every worker stops at a barrier, aligns with
// the others through the exchange (so every row sent before the barrier is in its operators),
// sends its state and the sink rows before it, and waits; the main thread commits the sinks,
// writes one checkpoint (the workers' shares merged, state-share.ts) and lets them go on. The
// sinks thus commit exactly the rows of the input positions the checkpoint records, as with one
// thread. Errors are typed RunErrors (run-errors.ts); nothing here picks an exit code.
import * as path from 'node:path';
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import type { Row } from '../ops/types.ts';
import type { RunningSink } from '../io/sinks.ts';
import { formatTable, type ConnectorContext } from '../connectors.ts';
import { DeadLetterFile } from '../dead-letters.ts';
import { CheckpointCoordinator, type CheckpointParts } from '../checkpoint-coordinator.ts';
import type { CheckpointDoc } from '../checkpoint.ts';
import { decodeState, encodeState } from '../codec.ts';
import type { Metrics } from '../metrics.ts';
import { checkSinkTargets, DEFAULT_STOP_GRACE_MS, StopControl } from '../lifecycle.ts';
import { commitSinks, interruptOnStop, publishSinks } from '../stop-bounds.ts';
import type { PipelineDef } from '../pipeline-types.ts';
import { closeAll, createSinks, openSinks, publishFinished } from '../connector-lifecycle.ts';
import { matchFiles, partitionName } from '../io/file-source.ts';
import { hideValues } from '../hidden-values.ts';
import { exitCodeOf, RunError, RunFailedError, type RunResult } from '../run-errors.ts';
import type { RunOptions } from '../engine.ts';
import { isPartitioned, probePlan, type ProbedOp } from './support.ts';
import { mergeClocks, mergePositions, OPERATOR_STATE, type ClockSnapshot, type FilePositions } from './state-share.ts';
import type { FromWorker, ToWorker, WorkerData, WorkerSnapshot } from './protocol.ts';
import { OUT_SLOTS, SLOT_BYTES } from './line-batch.ts';

export interface WorkersSetup {
  /** N ≥ 2. */
  workers: number;
  /** The worker thread's entry module (targets/runtime/run-worker.ts, or its bundle). */
  entry: URL;
  /** The generated body and runtime module names the definition was made from (each worker makes it again). */
  body: string;
  modules: string[];
}

/** `runPipelineDef` (runner.ts) for N workers: prints each RunError once and picks the exit code. */
export async function runWithWorkers(def: PipelineDef, opts: RunOptions, setup: WorkersSetup): Promise<{ exitCode: number }> {
  const write = opts.stderr ?? ((t: string) => void process.stderr.write(t));
  const printed = new Set<RunError>();
  const print = (e: RunError): void => {
    printed.add(e);
    write(hideValues(`pipec: ${e.message}\n`));
  };
  try {
    return { exitCode: exitCodeOf(await new Coordinator(def, opts, setup, print).run()) };
  } catch (e) {
    if (!(e instanceof RunError)) throw e;
    if (!printed.has(e)) print(e);
    return { exitCode: exitCodeOf(e) };
  }
}

interface Running {
  worker: Worker;
  ready: boolean;
  ended: boolean;
  snapshot: WorkerSnapshot | null;
  exited: Promise<void>;
}

class Coordinator {
  private readonly sinks: Map<string, RunningSink>;
  private readonly err: (text: string) => void;
  private readonly now = (): number => Date.now();
  private readonly metrics: Metrics;
  private readonly connCtx: ConnectorContext;
  private workers: Running[] = [];
  private firstError: RunError | null = null;
  private wake: (() => void) | null = null;
  private checkpointRequested = false;
  /** The run's stop request (set when the loop starts): checkpoints bound their waits on it. */
  private stop: StopControl | null = null;
  /** A stop gave up on publishing a checkpoint's output: the run ends on that checkpoint (stop-bounds.ts). */
  private gaveUpOnStop = false;
  /** Positions as of the last checkpoint (what sinks store with their commits), by source name. */
  private positions: Record<string, unknown> = {};
  private base = { records: new Map<string, number>(), dead: new Map<string, number>(), late: new Map<string, number>() };
  private resumedPositions = new Map<string, FilePositions>();
  /** The key-partitioned operators (their state is merged at a checkpoint), from the probed plan. */
  private partitioned: (ProbedOp & { kind: keyof typeof OPERATOR_STATE })[] = [];
  private dead!: DeadLetterFile;
  private readonly ckDir: string | null;

  constructor(
    private readonly def: PipelineDef,
    private readonly opts: RunOptions,
    private readonly setup: WorkersSetup,
    private readonly report: (e: RunError) => void,
  ) {
    const write = opts.stderr ?? ((t: string) => void process.stderr.write(t));
    this.err = (t) => write(hideValues(t));
    this.ckDir = opts.checkpointDir ? path.resolve(opts.checkpointDir) : null;
    const latest = (pick: (s: WorkerSnapshot['sources'][string]) => number, base: Map<string, number>) => (): Map<string, number> =>
      new Map(def.sources.map((s) => [s.name, (base.get(s.id) ?? 0) + this.workers.reduce((n, w) => n + (w.snapshot ? pick(w.snapshot.sources[s.id]!) : 0), 0)]));
    this.metrics = {
      pipeline: def.name,
      startedAt: this.now(),
      recordsIn: latest((s) => s.records, this.base.records),
      deadLetters: latest((s) => s.dead, this.base.dead),
      watermarks: new Map(),
      late: new Map(),
      recordsOut: () => new Map([...this.sinks.values()].map((s) => [s.def.name, s.rowsOut])),
      stateSize: () => new Map(),
      ignoredRetractions: () => new Map(),
      lag: () => new Map(),
      gauges: () => new Map(),
      checkpoints: 0,
      lastCheckpointAt: null,
      lastCheckpointMs: 0,
      lastCheckpointBytes: 0,
    };
    this.connCtx = {
      baseDir: opts.baseDir,
      env: opts.env,
      stdout: opts.stdout ?? ((t: string) => void process.stdout.write(t)),
      pipeline: def.name,
      sourcePositions: () => this.positions,
      warn: (m) => this.warn(m),
      requestCheckpoint: () => {
        this.checkpointRequested = true;
      },
      checkpointDir: this.ckDir,
      member: null,
      formats: formatTable(def.modules),
    };
    this.sinks = createSinks(def, this.connCtx, opts.discardSinks === true);
  }

  private warn(message: string): void {
    this.err(`pipec: ${message}\n`);
  }

  private readonly failureText = (e: unknown): string => {
    const x = e instanceof Error ? e : new Error(String(e));
    return this.opts.env.PIPEC_DEBUG ? (x.stack ?? x.message) : x.message;
  };

  /** What was reported already: N workers failing on the same input say it once. */
  private readonly said = new Set<string>();

  private fail(e: RunError): void {
    if (this.firstError === null) this.firstError = e;
    if (!this.said.has(e.message)) {
      this.said.add(e.message);
      this.report(e);
    }
    this.poke();
  }

  private poke(): void {
    const w = this.wake;
    this.wake = null;
    w?.();
  }

  async run(): Promise<RunResult> {
    const checkpoints = new CheckpointCoordinator(this.ckDir, this.def, this.metrics, this.now);
    try {
      const resumed = checkpoints.open();
      return await this.runResumed(checkpoints, resumed);
    } finally {
      checkpoints.release();
    }
  }

  private async runResumed(checkpoints: CheckpointCoordinator, resumed: CheckpointDoc | null): Promise<RunResult> {
    const { def } = this;
    // Generated code marks changelog sinks on the sinks it is given: the run's real ones.
    const probed = probePlan(def, (id) => this.sinks.get(id)!);
    this.partitioned = probed.ops.filter((o): o is ProbedOp & { kind: keyof typeof OPERATOR_STATE } => isPartitioned(o.kind));
    if (resumed) {
      checkpoints.checkFits(resumed, {
        pipeline: def.name,
        fingerprint: def.fingerprint,
        state: def.state,
        sources: def.sources.map((s) => s.id),
        sinks: [...this.sinks.keys()],
        operators: probed.ops.map((o) => o.id),
        member: null,
      });
      if (resumed.finished) {
        this.warn(`pipeline '${def.name}' already ran to the end of its input (checkpoint in ${this.ckDir})`);
        await publishFinished(this.sinks, resumed.sinks, def.name, (m) => this.warn(m), this.failureText);
        return { how: 'finished', signal: null };
      }
    }
    openSinks(this.sinks, resumed ? resumed.sinks : null, this.ckDir, this.failureText);
    this.dead = new DeadLetterFile(this.opts.baseDir, def.name, def.deadLetterPath ?? undefined, null, (m) => this.warn(m));
    if (resumed) {
      this.dead.resume(resumed.deadLetters);
      for (const [id, st] of Object.entries(resumed.sources)) {
        this.base.records.set(id, st.records);
        this.base.dead.set(id, st.dead);
        this.resumedPositions.set(id, decodeState(st.position) as FilePositions);
      }
      for (const [id, n] of Object.entries(resumed.late)) this.base.late.set(id, n);
      this.positions = Object.fromEntries(def.sources.map((s) => [s.name, resumed.sources[s.id]?.position ?? null]));
    }
    await this.spawn(resumed);
    return this.loop(checkpoints);
  }

  /** Deals every file source's files out round-robin (in path order) and starts the workers. */
  private async spawn(resumed: CheckpointDoc | null): Promise<void> {
    const { def, opts, setup } = this;
    const n = setup.workers;
    const shares: Record<string, string[][]> = {};
    for (const s of def.sources) {
      const files = (await matchFiles(s, opts.baseDir)).map((f) => partitionName(f, opts.baseDir));
      shares[s.id] = Array.from({ length: n }, (_, i) => files.filter((_, k) => k % n === i));
    }
    const peers: (MessagePort | null)[][] = Array.from({ length: n }, () => Array<MessagePort | null>(n).fill(null));
    for (let i = 0; i < n; i++) {
      for (let j = i + 1; j < n; j++) {
        const ch = new MessageChannel();
        peers[i]![j] = ch.port1;
        peers[j]![i] = ch.port2;
      }
    }
    // Sinks that write `def.json(row)` lines get them encoded by the workers, in parallel.
    const encoded = [...this.sinks].filter(([, s]) => typeof s.writeLines === 'function').map(([id]) => id);
    const taken = new SharedArrayBuffer(4 * (n * n + n));
    const takenCells = new Int32Array(taken);
    const resume: WorkerData['resume'] = resumed
      ? {
          sources: Object.fromEntries(Object.entries(resumed.sources).map(([id, st]) => [id, { position: decodeState(st.position), clock: decodeState(st.clock) }])),
          operators: Object.fromEntries(Object.entries(resumed.operators).map(([id, st]) => [id, decodeState(st)])),
        }
      : null;
    for (let i = 0; i < n; i++) {
      const lineRing = encoded.length > 0 ? new SharedArrayBuffer(OUT_SLOTS * SLOT_BYTES) : null;
      const data: WorkerData = { index: i, n, body: setup.body, modules: setup.modules, env: opts.env, baseDir: opts.baseDir, shares, peers: peers[i]!, taken, encoded, lineRing, resume };
      const worker = new Worker(setup.entry, { workerData: data, transferList: peers[i]!.filter((p): p is MessagePort => p !== null) });
      const r: Running = { worker, ready: false, ended: false, snapshot: null, exited: null! };
      r.exited = new Promise((done) => {
        worker.once('exit', (code) => {
          if (code !== 0 && this.firstError === null) this.fail(new RunFailedError(`pipeline '${def.name}' failed: worker ${i} exited with code ${code}`));
          done();
        });
      });
      worker.on('error', (e) => this.fail(new RunFailedError(`pipeline '${def.name}' failed: worker ${i}: ${this.failureText(e)}`)));
      worker.on('message', (m: FromWorker) => this.receive(i, r, m, takenCells, n));
      this.workers.push(r);
    }
    // Workers start reading together: one that loaded sooner would otherwise run ahead alone.
    while (!this.firstError && !this.workers.every((w) => w.ready)) await this.waitFor(() => this.workers.every((w) => w.ready), 1000);
    if (this.firstError) return;
    for (const w of this.workers) w.worker.postMessage({ t: 'go' } satisfies ToWorker);
  }

  private receive(i: number, r: Running, m: FromWorker, taken: Int32Array, n: number): void {
    switch (m.t) {
      case 'out':
        for (const [id, rows] of m.sinks) this.write(id, rows);
        for (const [id, text, rows] of m.lines) this.sinks.get(id)!.writeLines!(text, rows);
        for (const line of m.dead) this.dead.append(line);
        Atomics.add(taken, n * n + i, 1);
        return;
      case 'warn':
        // Every worker warns about what they share (an empty glob): once is enough.
        if (!this.said.has(m.message)) {
          this.said.add(m.message);
          this.warn(m.message);
        }
        return;
      case 'ready':
        r.ready = true;
        break;
      case 'ended':
        r.ended = true;
        break;
      case 'snapshot':
        r.snapshot = m;
        break;
      case 'failed':
        this.fail(new RunFailedError(`pipeline '${this.def.name}' failed: ${m.message}`));
        break;
    }
    this.poke();
  }

  private write(id: string, rows: Row[]): void {
    const sink = this.sinks.get(id)!;
    try {
      for (let k = 0; k < rows.length; k++) sink.write(rows[k]!);
    } catch (e) {
      this.fail(new RunFailedError(`pipeline '${this.def.name}' failed: ${this.failureText(e)}`));
    }
  }

  /** Waits until `ready()` holds, something fails, or `ms` pass. */
  private async waitFor(ready: () => boolean, ms: number): Promise<void> {
    if (ready() || this.firstError) return;
    await new Promise<void>((done) => {
      const t = setTimeout(done, ms);
      this.wake = () => {
        clearTimeout(t);
        done();
      };
    });
  }

  private async loop(checkpoints: CheckpointCoordinator): Promise<RunResult> {
    const { def, opts } = this;
    const stop = new StopControl({ handleSignals: opts.handleSignals ?? true, abort: opts.signal, graceMs: DEFAULT_STOP_GRACE_MS, err: this.err });
    this.stop = stop;
    void stop.stopped().then(() => this.poke());
    // A sink still connecting (a broker that is down) must not hold the stop up.
    interruptOnStop(stop, [], this.sinks.values());
    let how: 'finished' | 'stopped' = 'stopped';
    let lastCk = this.now();
    let lastFlush = this.now();
    let exit = false;
    try {
      await checkSinkTargets([...this.sinks.values()], stop, (m) => this.warn(m));
      for (;;) {
        await this.waitFor(() => stop.stopping || this.workers.every((w) => w.ended), 50);
        if (this.firstError) break;
        const t = this.now();
        if (stop.stopping || this.workers.every((w) => w.ended)) {
          const finished = !stop.stopping;
          // After a given-up publish the run ends on that checkpoint; the workers are stopped below.
          if (!this.gaveUpOnStop) {
            await this.checkpoint(checkpoints, finished, 'exit');
            exit = true;
          }
          how = finished ? 'finished' : 'stopped';
          break;
        }
        if (this.ckDir && (this.checkpointRequested || t - lastCk >= def.checkpointIntervalMs)) {
          this.checkpointRequested = false;
          await this.checkpoint(checkpoints, false, 'resume');
          lastCk = this.now();
        }
        if (t - lastFlush >= 200) {
          lastFlush = t;
          for (const s of this.sinks.values()) s.flush();
          this.dead.flush();
        }
      }
    } catch (e) {
      if (!(e instanceof RunError)) this.fail(new RunFailedError(`pipeline '${def.name}' failed: ${this.failureText(e)}`));
      else this.fail(e);
      stop.failing();
    } finally {
      if (exit && !this.firstError) await Promise.all(this.workers.map((w) => w.exited));
      else await Promise.all(this.workers.map((w) => w.worker.terminate()));
      await closeAll(this.sinks.values(), [], {
        failed: this.firstError !== null,
        failure: this.firstError?.message ?? null,
        warn: (m) => this.warn(m),
        report: (e) => this.fail(e),
        failureText: this.failureText,
      });
      try {
        this.dead.close();
      } catch (e) {
        this.fail(new RunFailedError(`pipeline '${def.name}': ${this.failureText(e)}`));
      }
      stop.dispose();
    }
    if (this.firstError) throw this.firstError;
    return { how, signal: stop.signal };
  }

  /** One aligned checkpoint: barrier to every worker, their snapshots, the sinks' commit, the document; then `next`. */
  private async checkpoint(checkpoints: CheckpointCoordinator, finished: boolean, next: 'resume' | 'exit'): Promise<void> {
    const seq = checkpoints.seq + 1;
    for (const w of this.workers) w.snapshot = null;
    for (const w of this.workers) w.worker.postMessage({ t: 'barrier', seq } satisfies ToWorker);
    while (!this.firstError && !this.workers.every((w) => w.snapshot?.seq === seq)) await this.waitFor(() => this.workers.every((w) => w.snapshot?.seq === seq), 1000);
    if (this.firstError) throw this.firstError;
    const snaps = this.workers.map((w) => w.snapshot!);
    const { def } = this;
    const sources: CheckpointDoc['sources'] = {};
    for (const s of def.sources) {
      const of = snaps.map((x) => x.sources[s.id]!);
      const position = mergePositions([this.resumedPositions.get(s.id) ?? {}, ...of.map((x) => x.position as FilePositions)]);
      sources[s.id] = {
        position: encodeState(position),
        clock: encodeState(mergeClocks(of.map((x) => x.clock as ClockSnapshot))),
        records: (this.base.records.get(s.id) ?? 0) + of.reduce((n, x) => n + x.records, 0),
        dead: (this.base.dead.get(s.id) ?? 0) + of.reduce((n, x) => n + x.dead, 0),
      };
    }
    const operators: Record<string, unknown> = {};
    for (const { id, kind } of this.partitioned) operators[id] = encodeState(OPERATOR_STATE[kind].merge(snaps.map((x) => x.operators[id])));
    const late: Record<string, number> = {};
    for (const id of new Set([...this.base.late.keys(), ...snaps.flatMap((x) => Object.keys(x.late))])) late[id] = (this.base.late.get(id) ?? 0) + snaps.reduce((n, x) => n + (x.late[id] ?? 0), 0);
    for (const [id, v] of Object.entries(late)) this.metrics.late.set(id, v);
    this.positions = Object.fromEntries(def.sources.map((s) => [s.name, sources[s.id]!.position]));
    const parts: CheckpointParts = {
      commitSinks: () => commitSinks(this.sinks, this.stop),
      body: () => ({ sources, operators, deadLetters: this.dead.progress(), late }),
      afterCheckpoint: async (seq) => {
        if (await publishSinks(this.sinks.values(), this.stop, seq, (m) => this.warn(m))) this.gaveUpOnStop = true;
      },
    };
    await checkpoints.take(parts, finished);
    for (const w of this.workers) w.worker.postMessage({ t: next } satisfies ToWorker);
  }
}
