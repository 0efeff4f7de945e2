// The engine of one pipeline run: wires sources, operators and sinks, moves watermarks through
// the operator graph, takes checkpoints (checkpoint-coordinator.ts), serves metrics, shows a
// status line, and stops cleanly on end of input, on stop() / the abort signal / SIGINT-SIGTERM
// (flush + checkpoint first, lifecycle.ts). Sources and sinks are made, opened and closed by
// connector-lifecycle.ts. `run()` resolves with how the run ended or rejects with a typed
// RunError (run-errors.ts); it picks no exit code and prints no error that ends the run — the
// entry points do (runner.ts). Warnings, progress and the status line go to `stderr`.
import * as path from 'node:path';
import { hostname } from 'node:os';
import type { Server } from 'node:http';
import type { Row, StatefulOp } from './ops/types.ts';
import { SourceClock } from './watermarks.ts';
import { formatTable, type ConnectorContext } from './connectors.ts';
import type { RunningSink } from './io/sinks.ts';
import { DeadLetterFile } from './dead-letters.ts';
import { guardDecode } from './io/guarded-decode.ts';
import type { CheckpointDoc } from './checkpoint.ts';
import { CheckpointCoordinator, type CheckpointParts } from './checkpoint-coordinator.ts';
import { encodeState, decodeState } from './codec.ts';
import { jsonAny } from './values.ts';
import { prometheusText, startMetricsServer, statusLine, type Metrics } from './metrics.ts';
import { StatusRenderer, summaryLine } from './status-line.ts';
import { checkSinkTargets, DEFAULT_STOP_GRACE_MS, StopControl } from './lifecycle.ts';
import { acknowledgeSources, commitSinks, interruptOnStop, publishSinks } from './stop-bounds.ts';
import type { Instance, PipelineDef } from './pipeline-types.ts';
import { dropsLate, operatorBuilders } from './operator-builders.ts';
import { GroupAggOp } from './ops/group-agg.ts';
import { WatermarkGraph } from './watermark-graph.ts';
import { checkMemberId, memberDir, MemberStore } from './member-store.ts';
import { HandOver } from './hand-over.ts';
import { hideValues } from './hidden-values.ts';
import { closeAll, closeQuietly, createSinks, createSource, openSinks, publishFinished } from './connector-lifecycle.ts';
import { coordsOf, sourceWatermark, wireSource, type SourceRt } from './source-runtime.ts';
import { RunError, RunFailedError, RunUsageError, type RunResult } from './run-errors.ts';

export interface RunOptions {
  baseDir: string;
  checkpointDir?: string;
  metricsPort?: number;
  status?: 'tty' | 'none';
  env: Record<string, string | undefined>;
  signal?: AbortSignal;
  /** Where stdout sinks write (tests capture it); defaults to process.stdout. */
  stdout?: (text: string) => void;
  /** Where messages and the status line go; defaults to process.stderr. */
  stderr?: (text: string) => void;
  /** Install SIGINT/SIGTERM handlers (default true). */
  handleSignals?: boolean;
  /** Benchmark/test hook: feed a source from memory (NDJSON lines or decoded rows) by source id. */
  memorySources?: Record<string, { lines?: string[]; rows?: Row[] }>;
  /** Benchmark hook: every sink only counts its rows. */
  discardSinks?: boolean;
  /**
   * Scaled-out pipelines (`scale_out = 'partitions'`): this process's member id (else
   * PIPEC_MEMBER_ID, else the host name). It must stay the same across restarts.
   */
  memberId?: string;
  /**
   * Processing time (epoch ms); defaults to the wall clock. `pipec test` scripts it, so idle
   * timeouts, processing-time ticks and checkpoint intervals follow the test's steps.
   */
  clock?: () => number;
  /**
   * A failure while running, at the moment it happens (the run then closes down and `run()`
   * rejects with the first of them): the entry point prints it then (runner.ts). Without it,
   * it is written to `stderr` as `pipec: <message>`.
   */
  onError?: (e: RunError) => void;
}

const BATCH = 512;

export class Engine {
  readonly metrics: Metrics;
  private readonly abort = new AbortController();
  private readonly onAbort = (): void => this.abort.abort();
  private ran = false;
  private readonly now: () => number;
  /** Messages through the status line (on a terminal it is cleared first). */
  private readonly err: (text: string) => void;
  private readonly out: (text: string) => void;
  private readonly status: StatusRenderer;
  private stdoutClosed = false;
  private readonly onStdoutError = (e: NodeJS.ErrnoException): void => {
    if (e.code === 'EPIPE') this.stdoutClosed = true;
  };
  private readonly sinks = new Map<string, RunningSink>();
  private readonly ops: StatefulOp[] = [];
  private readonly srcs: SourceRt[] = [];
  /** Scaled out: the partition tasks this member holds and their hand-over (set once the source exists). */
  private handOver: HandOver | null = null;

  constructor(
    readonly def: PipelineDef,
    private readonly opts: RunOptions,
  ) {
    const write = opts.stderr ?? ((t: string) => void process.stderr.write(t));
    // No `${NAME}` value (a password in a URL, a broker host) in anything the engine prints.
    const rawErr = (t: string): void => write(hideValues(t));
    // On a terminal, rows and messages clear the status line before they are written (status-line.ts).
    this.status = new StatusRenderer(rawErr, opts.status === 'tty');
    this.err = this.status.around(rawErr);
    // Writing to a closed pipe (`pipec run x | head`) ends the run quietly, as other CLI tools do.
    this.out = this.status.around(
      opts.stdout ??
        ((t: string) => {
          if (!this.stdoutClosed) process.stdout.write(t);
        }),
    );
    this.now = opts.clock ?? ((): number => Date.now());
    if (opts.signal?.aborted) this.abort.abort();
    else opts.signal?.addEventListener('abort', this.onAbort, { once: true });
    const srcs = this.srcs;
    const allOps = (): StatefulOp[] => this.allOps();
    this.metrics = {
      pipeline: def.name,
      startedAt: this.now(),
      recordsIn: () => new Map(srcs.map((s) => [s.src.def.name, s.records])),
      deadLetters: () => new Map(srcs.map((s) => [s.src.def.name, s.dead])),
      watermarks: new Map(def.sources.filter((s) => s.timeIndex >= 0).map((s) => [s.name, Number.NEGATIVE_INFINITY])),
      late: new Map(),
      recordsOut: () => new Map([...this.sinks.values()].map((s) => [s.def.name, s.rowsOut])),
      // Summed by operator id: scaled out, every partition task has its own copy of each operator.
      stateSize: () => {
        const m = new Map<string, number>();
        for (const o of allOps()) m.set(o.id, (m.get(o.id) ?? 0) + o.stateSize());
        return m;
      },
      ignoredRetractions: () => {
        const m = new Map<string, number>();
        for (const o of allOps()) if (o instanceof GroupAggOp) m.set(o.id, (m.get(o.id) ?? 0) + o.ignoredRetractions);
        return m;
      },
      lag: () => new Map(srcs.flatMap((s) => (s.src.lag ? [[s.src.def.name, s.src.lag()] as const] : []))),
      gauges: () => new Map(srcs.flatMap((s) => (s.src.gauges ? [[s.src.def.name, s.src.gauges()] as const] : []))),
      sinkCounters: () => new Map([...this.sinks.values()].flatMap((s) => (s.counters ? [[s.def.name, s.counters()] as const] : []))),
      checkpoints: 0,
      lastCheckpointAt: null,
      lastCheckpointMs: 0,
      lastCheckpointBytes: 0,
    };
  }

  /** Asks the run to stop: it flushes, takes a checkpoint and closes (as on SIGTERM, without an exit code of its own). */
  stop(): void {
    this.abort.abort();
  }

  /** The Prometheus text of the run's metrics now (what `/metrics` serves). */
  prometheus(): string {
    return prometheusText(this.metrics, this.now());
  }

  private allOps(): StatefulOp[] {
    return this.handOver ? this.handOver.ops() : this.ops;
  }

  /**
   * Writes text for the user where the run's messages go (`stderr`), with `${NAME}` values
   * hidden and, on a terminal, the status line cleared first: how an entry point prints the
   * RunErrors it is given.
   */
  message(text: string): void {
    this.err(text);
  }

  /** A message for the user (not an error that ends the run). */
  private warn(message: string): void {
    this.err(`pipec: ${message}\n`);
  }

  /** What a user sees of a failure: its message; the stack trace only with PIPEC_DEBUG=1 (for bug reports). */
  private readonly failureText = (e: unknown): string => {
    const x = e instanceof Error ? e : new Error(String(e));
    return this.opts.env.PIPEC_DEBUG ? (x.stack ?? x.message) : x.message;
  };

  /** Runs the pipeline once, to its end. */
  async run(): Promise<RunResult> {
    if (this.ran) throw new Error('pipec: an Engine runs once');
    this.ran = true;
    const { def, opts } = this;
    // ---------------------------------------------------------------- scale-out
    // Scaled out, every partition is a task (partition-tasks.ts) and the checkpoint directory is
    // the store shared by the members (member-store.ts); this member checkpoints into its own
    // directory in it.
    const scaleOut = def.scaleOut === 'partitions';
    let member: string | null = null;
    let store: MemberStore | null = null;
    if (scaleOut) {
      if (!opts.checkpointDir) throw new RunUsageError(`pipeline '${def.name}' scales out (scale_out = 'partitions'): give it a checkpoint directory shared by its members (--checkpoint-dir)`);
      try {
        member = checkMemberId(opts.memberId ?? opts.env.PIPEC_MEMBER_ID ?? hostname());
      } catch (e) {
        throw new RunUsageError((e as Error).message);
      }
      store = new MemberStore(path.resolve(opts.checkpointDir), member);
    }
    const ckDir = store ? memberDir(store.root, member!) : opts.checkpointDir ? path.resolve(opts.checkpointDir) : null;
    // Scaled out, the lock is this member's directory: members share the root by design.
    const checkpoints = new CheckpointCoordinator(ckDir, def, this.metrics, this.now);
    if (!opts.stdout) process.stdout.on('error', this.onStdoutError);
    try {
      const resumed = checkpoints.open();
      return await this.runResumed(checkpoints, resumed, { scaleOut, member, store });
    } finally {
      if (!opts.stdout) process.stdout.off('error', this.onStdoutError);
      // A long-lived signal (one per application) must not keep every finished engine alive.
      opts.signal?.removeEventListener('abort', this.onAbort);
      checkpoints.release();
    }
  }

  /**
   * The run after the checkpoint directory is open: wire the graph, resume from the checkpoint
   * (or notice the input was already read to its end), open the outputs, then loop until the
   * input ends, a stop is asked for, or something fails.
   */
  private async runResumed(checkpoints: CheckpointCoordinator, resumed: CheckpointDoc | null, scale: { scaleOut: boolean; member: string | null; store: MemberStore | null }): Promise<RunResult> {
    const r = this.wire(checkpoints, scale);
    try {
      this.startHandOver(r);
      if (resumed) {
        checkpoints.checkFits(resumed, this.shape(r));
        if (resumed.finished) return await this.alreadyFinished(r, resumed);
        this.restore(r, resumed);
      }
      this.openOutputs(r, resumed);
    } catch (e) {
      await closeQuietly(this.srcs.map((s) => s.src));
      throw e;
    }
    const server = await this.serveMetrics();
    return this.loop(r, server);
  }

  /** Sinks, operators, the dead-letter file, sources and watermark propagation of one run. */
  private wire(checkpoints: CheckpointCoordinator, scale: { scaleOut: boolean; member: string | null; store: MemberStore | null }): RunState {
    const r: RunState = {
      ...scale,
      checkpoints,
      ckDir: checkpoints.dir,
      connCtx: null!,
      checkpointRequested: false,
      instance: null,
      instantiate: null!,
      batchNow: this.now(),
      wmDirty: false,
      wmGraph: null,
      bySourceId: new Map(),
      dead: new DeadLetterFile(this.opts.baseDir, this.def.name, this.def.deadLetterPath ?? undefined, scale.member, (m) => this.warn(m)),
      parts: null!,
      stop: null,
      gaveUpOnStop: false,
    };
    r.connCtx = this.connectorContext(r);
    this.createOperators(r);
    this.wireSources(r);
    r.parts = this.checkpointParts(r);
    return r;
  }

  /** What connectors see of the run. */
  private connectorContext(r: RunState): ConnectorContext {
    const { def, opts, srcs } = this;
    return {
      baseDir: opts.baseDir,
      env: opts.env,
      stdout: this.out,
      pipeline: def.name,
      sourcePositions: () => Object.fromEntries(srcs.map((s) => [s.src.def.name, encodeState(s.src.position())])),
      warn: (message) => this.warn(message),
      requestCheckpoint: () => {
        r.checkpointRequested = true;
      },
      checkpointDir: r.ckDir,
      member: r.member,
      formats: formatTable(def.modules),
    };
  }

  private readonly countLate = (opId: string): void => void this.metrics.late.set(opId, (this.metrics.late.get(opId) ?? 0) + 1);

  /** The sinks, and the operator graph: one instance for the run, or (scaled out) one per partition task, made as partitions arrive. */
  private createOperators(r: RunState): void {
    const { def, opts, now, sinks } = this;
    for (const [id, s] of createSinks(def, r.connCtx, opts.discardSinks === true)) sinks.set(id, s);
    /** Builds one instance of the operator graph; its stateful operators go into `into`. */
    r.instantiate = (into: StatefulOp[], late: (opId: string, row: Row, lateBy: number) => void): Instance => {
      const track = <T extends StatefulOp>(op: T): T => {
        into.push(op);
        if (dropsLate(op)) this.metrics.late.set(op.id, this.metrics.late.get(op.id) ?? 0);
        return op;
      };
      return def.instantiate(operatorBuilders({ sink: (id) => sinks.get(id)!, late, now, track }));
    };
    if (!r.scaleOut) {
      const instance = r.instantiate(this.ops, (opId, row, lateBy) => {
        this.countLate(opId);
        instance.late[opId]?.(row, lateBy);
      });
      r.instance = instance;
    }
  }

  /** The sources, each feeding its scan of the instance (scaled out: the partition tasks), and watermark propagation. */
  private wireSources(r: RunState): void {
    const { def, opts, now, srcs } = this;
    const host = {
      now,
      batchNow: () => r.batchNow,
      handOver: () => this.handOver,
      propagate: () => this.propagate(r),
      markDirty: () => {
        r.wmDirty = true;
      },
      deadLetter: (line: string) => r.dead.append(line),
      warn: (message: string) => this.warn(message),
    };
    for (const generated of def.sources) {
      // Every source decodes through its guarded decoder: a decoder that throws on a record
      // makes it a dead letter, not a failed run (guarded-decode.ts).
      const sdef = generated.decode ? { ...generated, decode: guardDecode(generated.decode) } : generated;
      const rt = wireSource(sdef, new SourceClock(sdef.delayMs, sdef.idleTimeoutMs), r.instance ? r.instance.emit[sdef.id]! : () => {}, host);
      rt.src = createSource(def, sdef, rt.out, r.connCtx, opts.memorySources?.[sdef.id]);
      srcs.push(rt);
      r.bySourceId.set(sdef.id, rt);
    }
    r.wmGraph = r.instance
      ? new WatermarkGraph(r.instance.graph, (sourceId) => {
          const s = r.bySourceId.get(sourceId)!;
          return () => sourceWatermark(s);
        })
      : null;
  }

  private propagate(r: RunState): void {
    r.wmDirty = false;
    if (r.wmGraph) r.wmGraph.propagate();
    else this.handOver?.advanceAll();
  }

  /** What a checkpoint takes from the run: sink commits, the state body, and what follows it. */
  private checkpointParts(r: RunState): CheckpointParts {
    const { sinks, ops, srcs } = this;
    return {
      commitSinks: () => commitSinks(sinks, r.stop),
      body: (finished) => ({
        sources: Object.fromEntries(srcs.map((s) => [s.id, { position: encodeState(s.src.position()), clock: encodeState(s.clock.snapshot()), records: s.records, dead: s.dead }])),
        operators: Object.fromEntries(ops.map((o) => [o.id, encodeState(o.snapshot())])),
        ...(this.handOver ? { member: r.member!, tasks: this.handOver.entries(finished || (r.stop?.stopping ?? false)) } : {}),
        deadLetters: r.dead.progress(),
        late: Object.fromEntries(this.metrics.late),
      }),
      afterCheckpoint: async (seq) => {
        // A source's acknowledgement given up on leaves nothing for the next checkpoint to trip
        // over (the final one still records the latest positions, and scaled out, releases the
        // member's partitions); an unpublished sink output does.
        await acknowledgeSources(srcs.map((s) => s.src), r.stop, seq, (m) => this.warn(m));
        if (await publishSinks(sinks.values(), r.stop, seq, (m) => this.warn(m))) r.gaveUpOnStop = true;
      },
    };
  }

  private checkpoint(r: RunState, finished: boolean): Promise<void> {
    return r.checkpoints.take(r.parts, finished);
  }

  /** Scaled out: the partitions of the one Kafka source are the tasks this member takes and hands over. */
  private startHandOver(r: RunState): void {
    if (!r.scaleOut) return;
    const { def, now, srcs } = this;
    const taskSource = srcs[0];
    if (!taskSource) return;
    // The compiler admits one Kafka source when scaled out; a hand-made plan might not.
    if (srcs.length !== 1 || !taskSource.src.takeAssignmentChange || !taskSource.src.startPartition) {
      throw new RunUsageError(`pipeline '${def.name}' scales out by partition: it must read exactly one Kafka source`);
    }
    this.handOver = new HandOver({
      def,
      member: r.member!,
      store: r.store!,
      source: taskSource,
      instantiate: r.instantiate,
      countLate: this.countLate,
      now,
      batchNow: () => r.batchNow,
      warn: (message) => this.warn(message),
      dead: (p, reason, row) => taskSource.out.dead(coordsOf(taskSource, p), reason, jsonAny(row)),
      checkpoint: () => this.checkpoint(r, false),
    });
  }

  /** What a checkpoint must match to be resumed from. */
  private shape(r: RunState): Parameters<CheckpointCoordinator['checkFits']>[1] {
    const { def, sinks, ops, srcs } = this;
    return { pipeline: def.name, fingerprint: def.fingerprint, state: def.state, sources: srcs.map((s) => s.id), sinks: [...sinks.keys()], operators: ops.map((o) => o.id), member: r.member };
  }

  /** A checkpoint of a run that read its input to the end: nothing to do but say so (and publish what the sinks hold). */
  private async alreadyFinished(r: RunState, resumed: CheckpointDoc): Promise<RunResult> {
    this.warn(`pipeline '${this.def.name}' already ran to the end of its input (checkpoint in ${r.ckDir})`);
    await publishFinished(this.sinks, resumed.sinks, this.def.name, (m) => this.warn(m), this.failureText);
    return { how: 'finished', signal: null };
  }

  /** Source positions and clocks, operator state and late counts from the checkpoint. */
  private restore(r: RunState, resumed: CheckpointDoc): void {
    const t = this.now();
    for (const s of this.srcs) {
      const st = resumed.sources[s.id];
      if (!st) continue;
      // Scaled out, positions and clocks travel with the partition tasks (hand-over.ts).
      if (!r.scaleOut) {
        s.src.seek(decodeState(st.position));
        s.clock.restore(decodeState(st.clock), t);
      }
      s.records = st.records;
      s.dead = st.dead;
    }
    for (const op of this.ops) if (resumed.operators[op.id] !== undefined) op.restore(decodeState(resumed.operators[op.id]));
    for (const [id, n] of Object.entries(resumed.late)) this.metrics.late.set(id, n);
    // Operators restored their own watermarks; start propagation from them.
    r.wmGraph?.seedScans();
  }

  /**
   * Sinks first: one whose output no longer agrees with the checkpoint refuses before the dead
   * letters or the checkpoint are touched. Then the dead-letter file continues where it was.
   */
  private openOutputs(r: RunState, resumed: CheckpointDoc | null): void {
    openSinks(this.sinks, resumed ? resumed.sinks : null, r.ckDir, this.failureText);
    if (!resumed) return;
    r.dead.resume(resumed.deadLetters);
    // A restarted member releases what it held before it joins the group (hand-over.ts).
    if (this.handOver && resumed.tasks) r.checkpoints.rewrite({ ...resumed, tasks: this.handOver.releaseResumed(resumed.tasks) });
  }

  /** The `/metrics` endpoint, when a port is given. */
  private async serveMetrics(): Promise<Server | null> {
    const { metricsPort } = this.opts;
    if (metricsPort === undefined) return null;
    try {
      const server = await startMetricsServer(this.metrics, metricsPort);
      // The port actually bound: with --metrics-port 0 the system picks it.
      const bound = server.address();
      this.warn(`metrics on http://127.0.0.1:${typeof bound === 'object' && bound !== null ? bound.port : metricsPort}/metrics`);
      return server;
    } catch (e) {
      throw new RunUsageError(`cannot serve metrics on 127.0.0.1:${metricsPort}: ${(e as Error).message}`);
    }
  }

  /** Polls the sources and moves watermarks until the input ends or a stop; then checkpoints and closes everything. */
  private async loop(r: RunState, server: Server | null): Promise<RunResult> {
    const { def, opts, now, sinks, srcs } = this;
    // Signals, stop() and the abort signal (lifecycle.ts): a stop checkpoints first, bounded in time.
    const stop = new StopControl({ handleSignals: opts.handleSignals ?? true, abort: this.abort.signal, graceMs: DEFAULT_STOP_GRACE_MS, err: this.err });
    r.stop = stop;
    // A source or sink still connecting (a broker that is down) must not hold the stop up.
    interruptOnStop(stop, srcs.map((s) => s.src), sinks.values());
    const report = opts.onError ?? ((e: RunError): void => this.err(`pipec: ${e.message}\n`));
    /** The first error that ends the run (what `run()` rejects with); every one is reported as it happens. */
    let firstError: RunError | null = null;
    const fail = (e: RunError): void => {
      firstError ??= e;
      report(e);
    };

    const showStatus = opts.status === 'tty';
    let lastStatus = now();
    let prevIn = 0;
    let prevOut = 0;
    let lastCk = now();
    let lastTick = 0;
    let lastFlush = now();
    let how: 'finished' | 'stopped' = 'stopped';
    let failure: string | null = null;
    try {
      // A sink whose table or topic is missing ends the run now, not after its first rows.
      await checkSinkTargets([...sinks.values()], stop, (m) => this.warn(m));
      this.propagate(r);
      for (;;) {
        if (stop.stopping || this.stdoutClosed) break;
        if (this.handOver) await this.handOver.handOver();
        let produced = 0;
        r.batchNow = now();
        for (const s of srcs) if (!s.src.finished) produced += await s.src.poll(BATCH);
        const t = now();
        if (t - lastTick >= 50) {
          lastTick = t;
          for (const s of srcs) if (s.clock.tick(t)) r.wmDirty = true;
          for (const op of this.allOps()) op.tick?.(t);
        }
        if (r.wmDirty) this.propagate(r);
        for (const s of srcs) if (this.metrics.watermarks.has(s.src.def.name)) this.metrics.watermarks.set(s.src.def.name, s.clock.wm);
        if (srcs.every((s) => s.src.finished)) break;
        if (r.ckDir && (r.checkpointRequested || t - lastCk >= def.checkpointIntervalMs)) {
          r.checkpointRequested = false;
          await this.checkpoint(r, false);
          lastCk = now();
        }
        if (showStatus && t - lastStatus >= 1000) {
          const dt = t - lastStatus;
          lastStatus = t;
          this.status.draw(() => {
            const st = statusLine(this.metrics, prevIn, prevOut, dt, t);
            prevIn = st.totalIn;
            prevOut = st.totalOut;
            return st.text;
          });
        }
        if (produced === 0 || t - lastFlush >= 200) {
          lastFlush = t;
          for (const s of sinks.values()) s.flush();
          r.dead.flush();
        }
        if (produced === 0) await new Promise((r) => setTimeout(r, 20));
        else if (produced < BATCH) await new Promise((r) => setImmediate(r));
      }
      const ended = !stop.stopping && !this.stdoutClosed;
      if (ended) {
        // End of input: the watermark moves to the end of time; every window closes.
        for (const s of srcs) s.clock.wm = Number.POSITIVE_INFINITY;
        this.propagate(r);
      }
      if (!r.gaveUpOnStop) await this.checkpoint(r, ended);
      how = ended ? 'finished' : 'stopped';
    } catch (e) {
      failure = this.failureText(e);
      fail(new RunFailedError(`pipeline '${def.name}' failed: ${failure}`));
      // Closing down must not hang the failed run (the process exits after the grace period).
      stop.failing();
    } finally {
      await this.closeDown(r, server, failure, fail);
      const ending = firstError === null ? how : 'failed';
      stop.dispose();
      // Totals, not rates, stay on the terminal once everything is flushed and closed.
      this.status.finish(() => summaryLine(this.metrics, now(), ending));
    }
    if (firstError !== null) throw firstError;
    return { how, signal: stop.signal };
  }

  /** Sinks and sources closed (committing unless the run failed), the dead-letter file and the metrics server. */
  private async closeDown(r: RunState, server: Server | null, failure: string | null, fail: (e: RunError) => void): Promise<void> {
    await closeAll(
      this.sinks.values(),
      this.srcs.map((s) => s.src),
      { failed: failure !== null, failure, warn: (m) => this.warn(m), report: fail, failureText: this.failureText },
    );
    try {
      r.dead.close();
    } catch (e) {
      fail(new RunFailedError(`pipeline '${this.def.name}': ${this.failureText(e)}`));
    }
    if (server) {
      // Keep-alive connections (a Prometheus scraper) would keep a closing server serving.
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    }
  }
}

/** The state of one run that its steps share (engine.ts's methods take it). */
interface RunState {
  scaleOut: boolean;
  member: string | null;
  store: MemberStore | null;
  checkpoints: CheckpointCoordinator;
  ckDir: string | null;
  connCtx: ConnectorContext;
  /** A connector asked for a checkpoint (taken at the next turn of the loop). */
  checkpointRequested: boolean;
  /** The operator graph (null when scaled out: the partition tasks hold one each). */
  instance: Instance | null;
  instantiate: (into: StatefulOp[], late: (opId: string, row: Row, lateBy: number) => void) => Instance;
  /** Processing time of the current batch of polls. */
  batchNow: number;
  wmDirty: boolean;
  wmGraph: WatermarkGraph | null;
  bySourceId: Map<string, SourceRt>;
  dead: DeadLetterFile;
  parts: CheckpointParts;
  /** Set when the loop starts. */
  stop: StopControl | null;
  /**
   * A stop gave up on publishing a checkpoint's sink output (the target did not answer): the run
   * ends on that checkpoint, as a crash right after it would, without taking another.
   */
  gaveUpOnStop: boolean;
}
