// Sources and sinks through a run: made from the pipeline's runtime modules (a connector that
// refuses its options is a typed error, no stack trace), sinks opened against what the
// checkpoint recorded before anything else is touched, and everything closed at the end within
// bounded time, so a hung close cannot keep the process alive. Errors are typed (run-errors.ts);
// secondary problems while closing go to `report`.
import { sinkFactory, sourceFactory, type ConnectorContext } from './connectors.ts';
import type { RunningSource, SourceDef, SourceSink } from './io/source-types.ts';
import { DiscardSink, OutputMismatchError, type RunningSink } from './io/sinks.ts';
import { MemorySource } from './io/memory-source.ts';
import { startOverAdvice } from './checkpoint.ts';
import { CLOSE_TIMEOUT_MS, within } from './lifecycle.ts';
import { CheckpointRefusedError, ConnectorStartError, RunFailedError, RunUsageError, type RunError } from './run-errors.ts';
import type { PipelineDef } from './pipeline-types.ts';
import type { Row } from './ops/types.ts';

/** Makes every sink of the plan (not yet opened), by sink id. */
export function createSinks(def: PipelineDef, ctx: ConnectorContext, discard: boolean): Map<string, RunningSink> {
  const sinks = new Map<string, RunningSink>();
  for (const s of def.sinks) {
    if (discard) {
      sinks.set(s.id, new DiscardSink(s));
      continue;
    }
    const make = sinkFactory(s.connector, def.modules);
    if (!make) throw new RunUsageError(`sink '${s.name}': connector '${s.connector}' is not available in this runtime build`);
    try {
      sinks.set(s.id, make(s, ctx));
    } catch (e) {
      // A connector rejects its options before anything runs: a user error, no stack trace.
      throw new ConnectorStartError(`sink '${s.name}': ${(e as Error).message}`);
    }
  }
  return sinks;
}

/** Makes one running source (or the in-memory stand-in a benchmark or test gives for it). */
export function createSource(
  def: PipelineDef,
  sdef: SourceDef,
  out: SourceSink,
  ctx: ConnectorContext,
  mem: { lines?: string[]; rows?: Row[] } | undefined,
): RunningSource {
  if (mem) return new MemorySource(sdef, out, mem.lines ?? null, mem.rows ?? null);
  const make = sourceFactory(sdef.connector, def.modules);
  if (!make) throw new RunUsageError(`source '${sdef.name}': connector '${sdef.connector}' is not available in this runtime build`);
  try {
    return make(sdef, out, ctx);
  } catch (e) {
    // A connector rejects its options before anything runs: a user error, no stack trace.
    throw new ConnectorStartError(`source '${sdef.name}': ${(e as Error).message}`);
  }
}

/** Closes sources that never ran (a refusal at start); their errors do not matter then. */
export async function closeQuietly(sources: readonly RunningSource[]): Promise<void> {
  for (const s of sources) await s.close().catch(() => {});
}

/**
 * Opens every sink with what the checkpoint recorded for it. A sink whose output no longer
 * agrees with the checkpoint refuses before the dead letters or the checkpoint are touched.
 */
export function openSinks(sinks: Map<string, RunningSink>, recorded: Record<string, unknown> | null, ckDir: string | null, failureText: (e: unknown) => string): void {
  for (const [id, s] of sinks) {
    try {
      s.open(recorded ? (recorded[id] ?? null) : null);
    } catch (e) {
      if (e instanceof OutputMismatchError)
        throw new CheckpointRefusedError(`sink '${s.def.name}': ${e.message}. Put the output back as the last run left it, or start over. ${ckDir ? startOverAdvice(ckDir) : ''}`);
      // A sink refuses its configuration or what the checkpoint recorded: a message, no stack trace.
      throw new ConnectorStartError(`sink '${s.def.name}': ${failureText(e)}`);
    }
  }
}

/**
 * A resumed run whose input had already ended: two-phase sinks (Iceberg) may still have to
 * publish what the final checkpoint recorded. A file sink whose output changed since has
 * nothing to publish: it is left as it is (`warn`).
 */
export async function publishFinished(sinks: Map<string, RunningSink>, recorded: Record<string, unknown>, pipeline: string, warn: (m: string) => void, failureText: (e: unknown) => string): Promise<void> {
  try {
    const opened: RunningSink[] = [];
    for (const [id, s] of sinks) {
      try {
        s.open(recorded[id] ?? null);
        opened.push(s);
      } catch (e) {
        if (!(e instanceof OutputMismatchError)) throw e;
        warn(`sink '${s.def.name}': ${e.message}; left as it is`);
      }
    }
    for (const s of opened) await s.close();
  } catch (e) {
    throw new RunFailedError(`pipeline '${pipeline}' failed: ${failureText(e)}`);
  }
}

export interface CloseOptions {
  /** The run failed: a close that hangs is left behind (nothing is left to publish). */
  failed: boolean;
  /** The failure's text (a sink's close that repeats it is not reported again). */
  failure: string | null;
  warn: (m: string) => void;
  /** A close failure that fails the run. */
  report: (e: RunError) => void;
  failureText: (e: unknown) => string;
}

/** Closes every sink, then every source, each within CLOSE_TIMEOUT_MS after a failure. */
export async function closeAll(sinks: Iterable<RunningSink>, sources: readonly RunningSource[], o: CloseOptions): Promise<void> {
  for (const s of sinks) {
    // A sink may publish at close (Iceberg without checkpoints): its failure fails the run.
    try {
      const r = o.failed ? await within(s.close(), CLOSE_TIMEOUT_MS) : await s.close();
      if (r === 'timeout') o.warn(`sink '${s.def.name}' did not close within ${CLOSE_TIMEOUT_MS / 1000} s; left behind`);
    } catch (e) {
      // A sink's close repeats the failure that ended the run: said once is enough.
      const text = o.failureText(e);
      if (text !== o.failure) o.report(new RunFailedError(`sink '${s.def.name}' failed to close: ${text}`));
    }
  }
  for (const s of sources) {
    try {
      if ((await within(s.close(), CLOSE_TIMEOUT_MS)) === 'timeout') o.warn(`source '${s.def.name}' did not close within ${CLOSE_TIMEOUT_MS / 1000} s; left behind`);
    } catch (e) {
      o.warn(`source '${s.def.name}' failed to close: ${o.failureText(e)}`);
    }
  }
}
