// Runs a generated pipeline: wires sources, operators and sinks, moves watermarks through
// the operator graph, takes checkpoints, serves metrics, shows a status line, and stops
// cleanly on end of input (exit 0), on SIGINT/SIGTERM (exit 130/143, lifecycle.ts) or on an
// abort signal (flush + checkpoint first).
import * as path from 'node:path';
import { hostname } from 'node:os';
import type { Server } from 'node:http';
import { rowKind, type Row, type StatefulOp } from './ops/types.ts';
import { WindowAggOp } from './ops/window-agg.ts';
import { SessionAggOp } from './ops/session-agg.ts';
import { GroupAggOp } from './ops/group-agg.ts';
import { IntervalJoinOp } from './ops/interval-join.ts';
import { ChangelogNormalizeOp } from './ops/changelog-normalize.ts';
import { TemporalJoinOp } from './ops/temporal-join.ts';
import { SourceClock, type PartitionClock } from './watermarks.ts';
import { formatTable, sinkFactory, sourceFactory, type ConnectorContext } from './connectors.ts';
import type { Coordinates, RunningSource, SourceSink } from './io/source-types.ts';
import { DiscardSink, OutputMismatchError, TruncatingFile, writeError, type FileProgress, type RunningSink } from './io/sinks.ts';
import { MemorySource } from './io/memory-source.ts';
import { guardDecode } from './io/guarded-decode.ts';
import { CHECKPOINT_EXIT_CODE, CheckpointError, checkFits, readCheckpoint, startOverAdvice, writeCheckpoint, type CheckpointDoc } from './checkpoint.ts';
import { CheckpointLock, LockedError, LOCKED_EXIT_CODE } from './checkpoint-lock.ts';
import { encodeState, decodeState } from './codec.ts';
import { jsonAny } from './values.ts';
import { prometheusText, startMetricsServer, statusLine, type Metrics } from './metrics.ts';
import { StatusRenderer, summaryLine } from './status-line.ts';
import { checkSinkTargets, CLOSE_TIMEOUT_MS, DEFAULT_STOP_GRACE_MS, StopControl, within } from './lifecycle.ts';
import type { Builders, Instance, PipelineDef } from './pipeline-types.ts';
import { WatermarkGraph } from './watermark-graph.ts';
import { checkMemberId, memberDir, MemberStore } from './member-store.ts';
import { HandOver } from './hand-over.ts';
import { hideValues } from './hidden-values.ts';

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
}

const BATCH = 512;

interface SourceRt {
  id: string;
  src: RunningSource;
  clock: SourceClock;
  parts: PartitionClock[];
  emit: (row: Row) => void;
  records: number;
  dead: number;
  /** The source declares a watermark. */
  timed: boolean;
  /** Where the source hands its rows and dead letters (set right after the record is made). */
  out: SourceSink;
}

export async function runPipelineDef(def: PipelineDef, opts: RunOptions): Promise<{ exitCode: number }> {
  // The checkpoint directory's lock is held from before the checkpoint is read until the run
  // has returned, whichever way it returns.
  const locks: CheckpointLock[] = [];
  try {
    return await runLocked(def, opts, locks);
  } finally {
    for (const l of locks) l.release();
  }
}

async function runLocked(def: PipelineDef, opts: RunOptions, locks: CheckpointLock[]): Promise<{ exitCode: number }> {
  const write = opts.stderr ?? ((t: string) => void process.stderr.write(t));
  // No `${NAME}` value (a password in a URL, a broker host) in anything the runner prints.
  const rawErr = (t: string): void => write(hideValues(t));
  // On a terminal, rows and messages clear the status line before they are written (status-line.ts).
  const status = new StatusRenderer(rawErr, opts.status === 'tty');
  const err = status.around(rawErr);
  // Writing to a closed pipe (`pipec run x | head`) ends the run quietly, as other CLI tools do.
  let stdoutClosed = false;
  const onStdoutError = (e: NodeJS.ErrnoException): void => {
    if (e.code === 'EPIPE') stdoutClosed = true;
  };
  if (!opts.stdout) process.stdout.on('error', onStdoutError);
  const out = status.around(
    opts.stdout ??
      ((t: string) => {
        if (!stdoutClosed) process.stdout.write(t);
      }),
  );
  const now: () => number = opts.clock ?? ((): number => Date.now());
  /** What a user sees of a failure: its message; the stack trace only with PIPEC_DEBUG=1 (for bug reports). */
  const failureText = (e: unknown): string => {
    const x = e instanceof Error ? e : new Error(String(e));
    return opts.env.PIPEC_DEBUG ? (x.stack ?? x.message) : x.message;
  };

  // ---------------------------------------------------------------- metrics
  const sinks = new Map<string, RunningSink>();
  const ops: StatefulOp[] = [];
  const metrics: Metrics = {
    pipeline: def.name,
    startedAt: now(),
    recordsIn: () => new Map(srcs.map((s) => [s.src.def.name, s.records])),
    deadLetters: () => new Map(srcs.map((s) => [s.src.def.name, s.dead])),
    watermarks: new Map(def.sources.filter((s) => s.timeIndex >= 0).map((s) => [s.name, Number.NEGATIVE_INFINITY])),
    late: new Map(),
    recordsOut: () => new Map([...sinks.values()].map((s) => [s.def.name, s.rowsOut])),
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
    sinkCounters: () => new Map([...sinks.values()].flatMap((s) => (s.counters ? [[s.def.name, s.counters()] as const] : []))),
    checkpoints: 0,
    lastCheckpointAt: null,
    lastCheckpointMs: 0,
    lastCheckpointBytes: 0,
  };

  // ---------------------------------------------------------------- scale-out
  // Scaled out, every partition is a task (partition-tasks.ts) and the checkpoint directory is
  // the store shared by the members (member-store.ts); this member checkpoints into its own
  // directory in it.
  const scaleOut = def.options.scale_out === 'partitions';
  let member: string | null = null;
  let store: MemberStore | null = null;
  if (scaleOut) {
    if (!opts.checkpointDir) {
      err(`pipec: pipeline '${def.name}' scales out (scale_out = 'partitions'): give it a checkpoint directory shared by its members (--checkpoint-dir)\n`);
      return { exitCode: 2 };
    }
    try {
      member = checkMemberId(opts.memberId ?? opts.env.PIPEC_MEMBER_ID ?? hostname());
    } catch (e) {
      err(`pipec: ${(e as Error).message}\n`);
      return { exitCode: 2 };
    }
    store = new MemberStore(path.resolve(opts.checkpointDir), member);
  }

  // ---------------------------------------------------------------- sinks and operators
  let checkpointRequested = false;
  const connCtx: ConnectorContext = {
    baseDir: opts.baseDir,
    env: opts.env,
    stdout: out,
    pipeline: def.name,
    sourcePositions: () => Object.fromEntries(srcs.map((s) => [s.src.def.name, encodeState(s.src.position())])),
    warn: (message) => err(`pipec: ${message}\n`),
    requestCheckpoint: () => {
      checkpointRequested = true;
    },
    checkpointDir: store ? memberDir(store.root, member!) : opts.checkpointDir ? path.resolve(opts.checkpointDir) : null,
    member,
    formats: formatTable(def.modules),
  };

  // ---------------------------------------------------------------- checkpoint: lock and read
  // Before any connector exists: a second run on the directory, or a checkpoint that cannot be
  // resumed from, ends the run before anything is written (exit codes in docs/security.md).
  // Scaled out, the lock is this member's directory: members share the root by design.
  const ckDir = connCtx.checkpointDir;
  let resumed: CheckpointDoc | null = null;
  if (ckDir) {
    try {
      locks.push(CheckpointLock.acquire(ckDir, def.name));
    } catch (e) {
      if (e instanceof LockedError) {
        err(`pipec: ${e.message}\n`);
        return { exitCode: LOCKED_EXIT_CODE };
      }
      // The directory itself cannot be made or written (a file in the way, no permission, no space).
      const x = e as NodeJS.ErrnoException;
      if (typeof x?.code !== 'string') throw e;
      err(`pipec: pipeline '${def.name}': cannot write the checkpoint in ${ckDir}: ${x.code} (${x.message})\n`);
      return { exitCode: 1 };
    }
    try {
      resumed = readCheckpoint(ckDir);
    } catch (e) {
      if (!(e instanceof CheckpointError)) throw e;
      err(`pipec: ${e.message}. ${startOverAdvice(ckDir)}\n`);
      return { exitCode: CHECKPOINT_EXIT_CODE };
    }
  }
  for (const s of def.sinks) {
    if (opts.discardSinks) {
      sinks.set(s.id, new DiscardSink(s));
      continue;
    }
    const make = sinkFactory(s.connector, def.modules);
    if (!make) {
      err(`pipec: sink '${s.name}': connector '${s.connector}' is not available in this runtime build\n`);
      return { exitCode: 2 };
    }
    try {
      sinks.set(s.id, make(s, connCtx));
    } catch (e) {
      // A connector rejects its options before anything runs: a user error, no stack trace.
      err(`pipec: sink '${s.name}': ${(e as Error).message}\n`);
      return { exitCode: 2 };
    }
  }
  const countLate = (opId: string): void => void metrics.late.set(opId, (metrics.late.get(opId) ?? 0) + 1);
  /** Builds one instance of the operator graph; its stateful operators go into `into`. */
  function instantiate(into: StatefulOp[], late: (opId: string, row: Row, lateBy: number) => void): Instance {
    const opCtx = { late, now };
    const track = <T extends StatefulOp>(op: T): T => {
      into.push(op);
      // Only windows and interval joins drop late events: only they get a late counter.
      if (op instanceof WindowAggOp || op instanceof SessionAggOp || op instanceof IntervalJoinOp) metrics.late.set(op.id, metrics.late.get(op.id) ?? 0);
      return op;
    };
    const builders: Builders = {
      sink: (id) => sinks.get(id)!,
      windowAgg: (cfg) => track(new WindowAggOp(cfg, opCtx)),
      sessionAgg: (cfg) => track(new SessionAggOp(cfg, opCtx)),
      groupAgg: (cfg) => track(new GroupAggOp({ ...cfg, now })),
      intervalJoin: (cfg) => track(new IntervalJoinOp(cfg, opCtx)),
      normalize: (cfg) => track(new ChangelogNormalizeOp(cfg)),
      temporalJoin: (cfg) => track(new TemporalJoinOp({ ...cfg, now })),
    };
    return def.instantiate(builders);
  }
  // One instance for the whole run, or (scaled out) one per partition task, made as partitions arrive.
  let instance: Instance | null = null;
  if (!scaleOut) {
    instance = instantiate(ops, (opId, row, lateBy) => {
      countLate(opId);
      instance!.late[opId]?.(row, lateBy);
    });
  }
  /** Scaled out: the partition tasks this member holds and their hand-over (set once the source exists). */
  let handOver: HandOver | null = null;
  const allOps = (): StatefulOp[] => (handOver ? handOver.ops() : ops);

  // ---------------------------------------------------------------- dead letters
  // Members of a scaled-out pipeline may share a base directory: each writes its own file.
  const dlPath = path.resolve(opts.baseDir, def.options.dead_letter_path ?? (member ? `${def.name}.${member}.dead-letters.ndjson` : `${def.name}.dead-letters.ndjson`));
  const deadFile = new TruncatingFile(dlPath, 'the dead-letter file');
  let deadOpened = false;
  let deadProgress: FileProgress | null = null;
  const openDead = (): void => {
    if (!deadOpened) {
      // Dead letters are a record for people, not output: a file changed since the checkpoint
      // (cleared, say) is continued where it now ends, never padded to the recorded length.
      const why = deadProgress === null ? null : deadFile.mismatch(deadProgress);
      if (why !== null) {
        err(`pipec: the dead-letter file ${dlPath} changed since the last checkpoint (${why}); new dead letters go after what it holds now\n`);
        deadProgress = { bytes: deadFile.size() };
      }
      deadFile.open(deadProgress?.bytes ?? null);
      deadOpened = true;
    }
  };

  // ---------------------------------------------------------------- sources
  const srcs: SourceRt[] = [];
  // Processing time as of the current poll: per-record clock reads cost more than they tell.
  let batchNow = now();
  const bySourceId = new Map<string, SourceRt>();
  let wmDirty = false;
  for (const generated of def.sources) {
    // Every source decodes through its guarded decoder: a decoder that throws on a record
    // makes it a dead letter, not a failed run (guarded-decode.ts).
    const sdef = generated.decode ? { ...generated, decode: guardDecode(generated.decode) } : generated;
    const clock = new SourceClock(sdef.delayMs, sdef.idleTimeoutMs);
    const rt: SourceRt = { id: sdef.id, src: null as unknown as RunningSource, clock, parts: [], emit: instance ? instance.emit[sdef.id]! : () => {}, records: 0, dead: 0, timed: sdef.timeIndex >= 0, out: null as unknown as SourceSink };
    const ti = sdef.timeIndex;
    const name = sdef.name;
    const sink: SourceSink = {
      row: (p, row) => {
        rt.records++;
        if (handOver) {
          handOver.row(p, row);
          return;
        }
        if (ti >= 0) {
          const ts = row[ti];
          if (ts === null) {
            // A retraction ('-U'/'-D') of a CDC table without REPLICA IDENTITY FULL carries only
            // the key: it says nothing about event time, and must still reach the operators.
            const kind = rowKind(row);
            if (kind === '-U' || kind === '-D') {
              rt.emit(row);
              return;
            }
            sink.dead(coordsOf(rt, p), `watermark column ${sdef.columns[ti]!.name} is NULL`, jsonAny(row));
            return;
          }
          rt.emit(row);
          const part = rt.parts[p]!;
          // Most records do not move their partition's maximum: skip the watermark machinery.
          if ((ts as number) > part.maxTs || part.idle) {
            if (clock.observe(part, ts as number, batchNow)) propagate();
          } else part.lastSeen = batchNow;
        } else rt.emit(row);
      },
      dead: (coords: Coordinates, reason: string, raw: string) => {
        rt.dead++;
        openDead();
        deadFile.append(JSON.stringify({ source: name, ...coords, reason, record: raw }) + '\n');
      },
      partitionAdded: (id) => {
        rt.parts.push(clock.partition(id, now()));
        return rt.parts.length - 1;
      },
      warn: (message) => err(`pipec: source '${name}': ${message}\n`),
      partitionDone: (p) => {
        if (clock.finish(rt.parts[p]!, now())) wmDirty = true;
      },
      partitionRevoked: (p) => {
        if (clock.setRevoked(rt.parts[p]!, true, now())) wmDirty = true;
      },
      partitionReassigned: (p) => {
        if (clock.setRevoked(rt.parts[p]!, false, now())) wmDirty = true;
      },
      partitionBehind: (p, behind) => {
        if (clock.setBehind(rt.parts[p]!, behind, now())) wmDirty = true;
      },
      // Like a record's event time, a watermark the source states moves at once (before its next record).
      partitionWatermark: (p, wm) => {
        if (clock.advanceTo(rt.parts[p]!, wm, now())) propagate();
      },
      partitionIdle: (p) => {
        if (clock.setIdle(rt.parts[p]!, now())) propagate();
      },
    };
    rt.out = sink;
    const mem = opts.memorySources?.[sdef.id];
    const make = mem ? null : sourceFactory(sdef.connector, def.modules);
    if (mem) rt.src = new MemorySource(sdef, sink, mem.lines ?? null, mem.rows ?? null);
    else if (make) {
      try {
        rt.src = make(sdef, sink, connCtx);
      } catch (e) {
        // A connector rejects its options before anything runs: a user error, no stack trace.
        err(`pipec: source '${sdef.name}': ${(e as Error).message}\n`);
        return { exitCode: 2 };
      }
    } else {
      err(`pipec: source '${sdef.name}': connector '${sdef.connector}' is not available in this runtime build\n`);
      return { exitCode: 2 };
    }
    srcs.push(rt);
    bySourceId.set(sdef.id, rt);
  }
  function coordsOf(rt: SourceRt, p: number): Coordinates {
    const own = rt.src.lastCoordinates?.(p);
    if (own) return own;
    const pos = rt.src.position() as Record<string, { line?: number; offset?: number }> | { next: number };
    const part = rt.parts[p]!.id;
    const x = (pos as Record<string, { line?: number; offset?: number }>)[part];
    return x?.line !== undefined ? { file: part, line: x.line } : { partition: part, offset: x?.offset ?? (pos as { next: number }).next ?? 0 };
  }

  // ---------------------------------------------------------------- watermark propagation
  const srcWm = (s: SourceRt): number =>
    s.timed ? s.clock.wm : s.clock.allDone ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY;
  const wmGraph = instance
    ? new WatermarkGraph(instance.graph, (sourceId) => {
        const s = bySourceId.get(sourceId)!;
        return () => srcWm(s);
      })
    : null;
  function propagate(): void {
    wmDirty = false;
    if (wmGraph) wmGraph.propagate();
    else handOver?.advanceAll();
  }

  // ---------------------------------------------------------------- partition tasks (scaled out)
  // The compiler admits one Kafka source when scaled out; its partitions are the tasks.
  const taskSource = scaleOut ? srcs[0]! : null;
  if (taskSource && (srcs.length !== 1 || !taskSource.src.takeAssignmentChange || !taskSource.src.startPartition)) {
    // The checker refuses this; a hand-made plan might not.
    err(`pipec: pipeline '${def.name}' scales out by partition: it must read exactly one Kafka source\n`);
    for (const s of srcs) await s.src.close().catch(() => {});
    return { exitCode: 2 };
  }
  if (taskSource) {
    handOver = new HandOver({
      def,
      member: member!,
      store: store!,
      source: taskSource,
      instantiate,
      countLate,
      now,
      batchNow: () => batchNow,
      warn: (message) => err(`pipec: ${message}\n`),
      dead: (p, reason, row) => taskSource.out.dead(coordsOf(taskSource, p), reason, jsonAny(row)),
      checkpoint: () => checkpoint(false),
    });
  }

  // ---------------------------------------------------------------- checkpoints
  // Relative to the working directory, like every other path given on a command line.
  // Scaled out: this member's directory in the shared store.
  let ckSeq = 0;
  if (resumed) {
    // Every part of the plan must find its entry (and nothing else): one missing would start
    // from nothing while the others resume.
    try {
      checkFits(ckDir!, resumed, {
        pipeline: def.name,
        fingerprint: def.fingerprint,
        state: def.state,
        sources: srcs.map((s) => s.id),
        sinks: [...sinks.keys()],
        operators: ops.map((o) => o.id),
        member,
      });
    } catch (e) {
      if (!(e instanceof CheckpointError)) throw e;
      err(`pipec: ${e.message}. ${startOverAdvice(ckDir!)}\n`);
      for (const src of srcs) await src.src.close().catch(() => {});
      return { exitCode: CHECKPOINT_EXIT_CODE };
    }
    if (resumed.finished) {
      err(`pipec: pipeline '${def.name}' already ran to the end of its input (checkpoint in ${ckDir})\n`);
      // Two-phase sinks (Iceberg) may still have to publish what the final checkpoint recorded.
      // A file sink whose output changed since has nothing to publish: it is left as it is.
      try {
        const opened: RunningSink[] = [];
        for (const [id, s] of sinks) {
          try {
            s.open(resumed.sinks[id] ?? null);
            opened.push(s);
          } catch (e) {
            if (!(e instanceof OutputMismatchError)) throw e;
            err(`pipec: sink '${s.def.name}': ${e.message}; left as it is\n`);
          }
        }
        for (const s of opened) await s.close();
      } catch (e) {
        err(`pipec: pipeline '${def.name}' failed: ${failureText(e)}\n`);
        return { exitCode: 1 };
      }
      return { exitCode: 0 };
    }
    ckSeq = resumed.seq;
    const t = now();
    for (const s of srcs) {
      const st = resumed.sources[s.id];
      if (!st) continue;
      // Scaled out, positions and clocks travel with the partition tasks (hand-over.ts).
      if (!scaleOut) {
        s.src.seek(decodeState(st.position));
        s.clock.restore(decodeState(st.clock), t);
      }
      s.records = st.records;
      s.dead = st.dead;
    }
    for (const op of ops) if (resumed.operators[op.id] !== undefined) op.restore(decodeState(resumed.operators[op.id]));
    for (const [id, n] of Object.entries(resumed.late)) metrics.late.set(id, n);
    // Operators restored their own watermarks; start propagation from them.
    wmGraph?.seedScans();
  }
  // Sinks first: one whose output no longer agrees with the checkpoint refuses before the
  // dead letters or the checkpoint are touched.
  for (const [id, s] of sinks) {
    try {
      s.open(resumed ? (resumed.sinks[id] ?? null) : null);
    } catch (e) {
      for (const src of srcs) await src.src.close().catch(() => {});
      if (e instanceof OutputMismatchError) {
        err(`pipec: sink '${s.def.name}': ${e.message}. Put the output back as the last run left it, or start over. ${ckDir ? startOverAdvice(ckDir) : ''}\n`);
        return { exitCode: CHECKPOINT_EXIT_CODE };
      }
      // A sink refuses its configuration or what the checkpoint recorded: a message, no stack trace.
      err(`pipec: sink '${s.def.name}': ${failureText(e)}\n`);
      return { exitCode: 2 };
    }
  }
  if (resumed) {
    deadProgress = resumed.deadLetters;
    if (deadProgress !== null) openDead();
    // A restarted member releases what it held before it joins the group (hand-over.ts).
    if (handOver && resumed.tasks) writeCheckpoint(ckDir!, { ...resumed, tasks: handOver.releaseResumed(resumed.tasks) });
  }

  async function checkpoint(finished: boolean): Promise<void> {
    const t0 = performance.now();
    const sinkProgress: Record<string, unknown> = {};
    // null, never undefined: JSON would drop the entry, and a resume requires one per sink.
    for (const [id, s] of sinks) sinkProgress[id] = (await s.commit()) ?? null;
    const doc: CheckpointDoc = {
      version: 3,
      pipeline: def.name,
      fingerprint: def.fingerprint,
      state: def.state,
      seq: ++ckSeq,
      finished,
      sources: Object.fromEntries(
        srcs.map((s) => [s.id, { position: encodeState(s.src.position()), clock: encodeState(s.clock.snapshot()), records: s.records, dead: s.dead }]),
      ),
      operators: Object.fromEntries(ops.map((o) => [o.id, encodeState(o.snapshot())])),
      ...(handOver ? { member: member!, tasks: handOver.entries(finished || stop.stopping) } : {}),
      sinks: sinkProgress,
      deadLetters: deadOpened ? deadFile.progress() : null,
      late: Object.fromEntries(metrics.late),
    };
    if (ckDir) {
      try {
        metrics.lastCheckpointBytes = writeCheckpoint(ckDir, doc);
      } catch (e) {
        // Say that it was the checkpoint, and where (fs messages of ENOSPC name no file).
        throw writeError('the checkpoint in', ckDir, e);
      }
      metrics.checkpoints++;
      metrics.lastCheckpointAt = now();
      metrics.lastCheckpointMs = performance.now() - t0;
      // Only now, with sinks durable and positions recorded, may sources acknowledge upstream
      // (e.g. commit Kafka offsets).
      for (const s of srcs) {
        try {
          await s.src.afterCheckpoint?.();
        } catch (e) {
          // The checkpoint holds the positions (they win on resume); acknowledging upstream is
          // only housekeeping (e.g. a group rebalancing refuses offset commits). The next
          // checkpoint acknowledges again.
          err(`pipec: source '${s.src.def.name}': could not acknowledge checkpoint ${ckSeq} upstream (retried at the next checkpoint): ${(e as Error).message}\n`);
        }
      }
      for (const s of sinks.values()) await s.afterCheckpoint?.();
    }
  }

  // ---------------------------------------------------------------- run loop
  let server: Server | null = null;
  if (opts.metricsPort !== undefined) {
    try {
      server = await startMetricsServer(metrics, opts.metricsPort);
      // The port actually bound: with --metrics-port 0 the system picks it.
      const bound = server.address();
      err(`pipec: metrics on http://127.0.0.1:${typeof bound === 'object' && bound !== null ? bound.port : opts.metricsPort}/metrics\n`);
    } catch (e) {
      err(`pipec: cannot serve metrics on 127.0.0.1:${opts.metricsPort}: ${(e as Error).message}\n`);
      return { exitCode: 2 };
    }
  }
  // Signals and the abort signal (lifecycle.ts): a stop checkpoints first, bounded in time.
  const stop = new StopControl({ handleSignals: opts.handleSignals ?? true, abort: opts.signal, graceMs: DEFAULT_STOP_GRACE_MS, err });

  const showStatus = opts.status === 'tty';
  let lastStatus = now();
  let prevIn = 0;
  let prevOut = 0;
  let lastCk = now();
  let lastTick = 0;
  let lastFlush = now();
  let exitCode = 0;
  let how: 'finished' | 'stopped' = 'stopped';
  let failed = false;
  let failure: string | null = null;
  try {
    // A sink whose table or topic is missing ends the run now, not after its first rows.
    await checkSinkTargets([...sinks.values()], stop, (m) => err(`pipec: ${m}\n`));
    propagate();
    for (;;) {
      if (stop.stopping || stdoutClosed) break;
      if (handOver) await handOver.handOver();
      let produced = 0;
      batchNow = now();
      for (const s of srcs) if (!s.src.finished) produced += await s.src.poll(BATCH);
      const t = now();
      if (t - lastTick >= 50) {
        lastTick = t;
        for (const s of srcs) if (s.clock.tick(t)) wmDirty = true;
        for (const op of allOps()) op.tick?.(t);
      }
      if (wmDirty) propagate();
      for (const s of srcs) if (metrics.watermarks.has(s.src.def.name)) metrics.watermarks.set(s.src.def.name, s.clock.wm);
      if (srcs.every((s) => s.src.finished)) break;
      if (ckDir && (checkpointRequested || t - lastCk >= def.checkpointIntervalMs)) {
        checkpointRequested = false;
        await checkpoint(false);
        lastCk = now();
      }
      if (showStatus && t - lastStatus >= 1000) {
        const dt = t - lastStatus;
        lastStatus = t;
        status.draw(() => {
          const st = statusLine(metrics, prevIn, prevOut, dt, t);
          prevIn = st.totalIn;
          prevOut = st.totalOut;
          return st.text;
        });
      }
      if (produced === 0 || t - lastFlush >= 200) {
        lastFlush = t;
        for (const s of sinks.values()) s.flush();
        if (deadOpened) deadFile.flush();
      }
      if (produced === 0) await new Promise((r) => setTimeout(r, 20));
      else if (produced < BATCH) await new Promise((r) => setImmediate(r));
    }
    const ended = !stop.stopping && !stdoutClosed;
    if (ended) {
      // End of input: the watermark moves to the end of time; every window closes.
      for (const s of srcs) s.clock.wm = Number.POSITIVE_INFINITY;
      propagate();
    }
    await checkpoint(ended);
    how = ended ? 'finished' : 'stopped';
  } catch (e) {
    failure = failureText(e);
    err(`pipec: pipeline '${def.name}' failed: ${failure}\n`);
    exitCode = 1;
    failed = true;
    // Closing down must not hang the failed run (the process exits after the grace period).
    stop.failing();
  } finally {
    for (const s of sinks.values()) {
      // A sink may publish at close (Iceberg without checkpoints): its failure fails the run.
      // After a failure nothing is left to publish: a close that hangs is left behind.
      try {
        const r = failed ? await within(s.close(), CLOSE_TIMEOUT_MS) : await s.close();
        if (r === 'timeout') err(`pipec: sink '${s.def.name}' did not close within ${CLOSE_TIMEOUT_MS / 1000} s; left behind\n`);
      } catch (e) {
        // A sink's close repeats the failure that ended the run: said once is enough.
        if (failureText(e) !== failure) err(`pipec: sink '${s.def.name}' failed to close: ${failureText(e)}\n`);
        exitCode = 1;
      }
    }
    for (const s of srcs) {
      try {
        if ((await within(s.src.close(), CLOSE_TIMEOUT_MS)) === 'timeout') err(`pipec: source '${s.src.def.name}' did not close within ${CLOSE_TIMEOUT_MS / 1000} s; left behind\n`);
      } catch (e) {
        err(`pipec: source '${s.src.def.name}' failed to close: ${failureText(e)}\n`);
      }
    }
    try {
      if (deadOpened) deadFile.close();
    } catch (e) {
      err(`pipec: pipeline '${def.name}': ${failureText(e)}\n`);
      exitCode = 1;
    }
    if (!opts.stdout) process.stdout.off('error', onStdoutError);
    if (server) {
      // Keep-alive connections (a Prometheus scraper) would keep a closing server serving.
      server.closeAllConnections();
      await new Promise((r) => server!.close(r));
    }
    const ending = exitCode === 0 ? how : 'failed';
    exitCode = stop.exitCode(exitCode);
    stop.dispose();
    // Totals, not rates, stay on the terminal once everything is flushed and closed.
    status.finish(() => summaryLine(metrics, now(), ending));
  }
  return { exitCode };
}

export { prometheusText };
