// The runtime's library API: `start(def, opts)` runs a pipeline in this process and hands back a
// RunHandle — `stop()` (flush, checkpoint, close), `metrics()` (the counters now), and `done`
// (how the run ended, or the typed RunError that ended it). Nothing here prints an error or
// touches the process: no signal handlers unless asked, no exit code (docs/api.md).
import { Engine, type RunOptions } from './engine.ts';
import type { RunError, RunResult } from './run-errors.ts';
import type { PipelineDef } from './pipeline-types.ts';

export interface StartOptions {
  /** Where relative option paths resolve (default: the working directory). */
  baseDir?: string;
  /** Resume from and checkpoint into this directory; without it nothing is resumed. */
  checkpointDir?: string;
  /** Serve `/metrics` and `/health` on 127.0.0.1 at this port (0: any free port). */
  metricsPort?: number;
  /** The values `${NAME}` options read at start (default: process.env). */
  env?: Record<string, string | undefined>;
  /** Stops the run when aborted (as `stop()`). */
  signal?: AbortSignal;
  /** Where stdout sinks write (default: process.stdout). */
  stdout?: (text: string) => void;
  /** Where warnings and progress messages go (default: process.stderr). */
  stderr?: (text: string) => void;
  /**
   * Each failure while running, as it happens (`done` then rejects with the first). Without
   * it, they are written to `stderr`.
   */
  onError?: (e: RunError) => void;
  /** Own SIGINT/SIGTERM like the CLI does (default false: a library leaves the process's signals alone). */
  handleSignals?: boolean;
  /** Scaled-out pipelines: this process's member id (else PIPEC_MEMBER_ID, else the host name). */
  memberId?: string;
}

/** The counters of a running pipeline at one moment, by source, sink or operator name. */
export interface RunMetrics {
  pipeline: string;
  /** Epoch ms. */
  startedAt: number;
  recordsIn: Record<string, number>;
  recordsOut: Record<string, number>;
  deadLetters: Record<string, number>;
  /** Late events dropped, per window or interval-join operator. */
  late: Record<string, number>;
  /** Per source with a watermark: its watermark (epoch ms; -Infinity before the first record). */
  watermarks: Record<string, number>;
  /** State entries held, per stateful operator. */
  stateSize: Record<string, number>;
  checkpoints: number;
  /** Epoch ms of the last checkpoint written, or null. */
  lastCheckpointAt: number | null;
}

export interface RunHandle {
  /** Asks the run to stop (flush, checkpoint, close) and resolves as `done` does. */
  stop(): Promise<RunResult>;
  metrics(): RunMetrics;
  /** The metrics in Prometheus text format (what `/metrics` serves). */
  prometheus(): string;
  /** How the run ended (`finished` at the end of bounded input, or `stopped`); rejects with a RunError. */
  readonly done: Promise<RunResult>;
}

/**
 * Starts a pipeline: `def` is what a generated module's `definePipeline(env)` returns, with the
 * module's `modules` (the connectors it imports): `start({ ...definePipeline(env), modules }, opts)`.
 */
export function start(def: PipelineDef, opts: StartOptions = {}): RunHandle {
  const runOpts: RunOptions = {
    baseDir: opts.baseDir ?? process.cwd(),
    checkpointDir: opts.checkpointDir,
    metricsPort: opts.metricsPort,
    env: opts.env ?? process.env,
    signal: opts.signal,
    stdout: opts.stdout,
    stderr: opts.stderr,
    onError: opts.onError,
    handleSignals: opts.handleSignals ?? false,
    memberId: opts.memberId,
    status: 'none',
  };
  const engine = new Engine(def, runOpts);
  const done = engine.run();
  // A caller that only calls stop() still sees the rejection there; this keeps an unobserved
  // `done` from being an unhandled rejection before the caller gets to it.
  done.catch(() => {});
  const record = (m: Map<string, number>): Record<string, number> => Object.fromEntries(m);
  return {
    stop: () => {
      engine.stop();
      return done;
    },
    metrics: () => {
      const m = engine.metrics;
      return {
        pipeline: m.pipeline,
        startedAt: m.startedAt,
        recordsIn: record(m.recordsIn()),
        recordsOut: record(m.recordsOut()),
        deadLetters: record(m.deadLetters()),
        late: record(m.late),
        watermarks: record(m.watermarks),
        stateSize: record(m.stateSize()),
        checkpoints: m.checkpoints,
        lastCheckpointAt: m.lastCheckpointAt,
      };
    },
    prometheus: () => engine.prometheus(),
    done,
  };
}
