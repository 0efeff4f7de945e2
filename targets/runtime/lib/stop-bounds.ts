// What a checkpoint waits on outside the process (sinks committing and publishing, sources
// acknowledging upstream), bounded once a stop is asked for: a broker that is down makes its
// client retry for minutes, and a stop must not wait out its whole deadline for it. Each bound
// ends the wait as a crash at that point would, which the checkpoint protocol makes safe; the
// run says what it left undone. Shared by the one-thread engine and the `--workers` coordinator.
import type { RunningSource } from './io/source-types.ts';
import type { RunningSink } from './io/sinks.ts';
import { ACK_ON_STOP_MS, SINK_ON_STOP_MS, unlessStopping, type StopControl } from './lifecycle.ts';
import { RunFailedError } from './run-errors.ts';

/** Once a stop is asked for, sources and sinks still connecting stop waiting (`interrupt`). */
export function interruptOnStop(stop: StopControl, sources: readonly RunningSource[], sinks: Iterable<RunningSink>): void {
  void stop.stopped().then(() => {
    for (const s of sources) s.interrupt?.();
    for (const s of sinks) s.interrupt?.();
  });
}

/**
 * Every sink's commit, in order: the progress a checkpoint records, by sink id. After a stop, a
 * sink whose target does not confirm within SINK_ON_STOP_MS fails the checkpoint (none is taken:
 * the restart computes the rows since the last one again).
 */
export async function commitSinks(sinks: Map<string, RunningSink>, stop: StopControl | null): Promise<Record<string, unknown>> {
  const progress: Record<string, unknown> = {};
  for (const [id, s] of sinks) {
    const committed = await unlessStopping(s.commit(), stop, SINK_ON_STOP_MS);
    if (committed === 'gave-up') {
      throw new RunFailedError(
        `sink '${s.def.name}': its target did not confirm the rows within ${SINK_ON_STOP_MS / 1000} s of the stop; no checkpoint was taken, so a restart computes the rows since the last one again`,
      );
    }
    // null, never undefined: JSON would drop the entry, and a resume requires one per sink.
    progress[id] = committed ?? null;
  }
  return progress;
}

/**
 * Every sink's publishing after checkpoint `seq` is durable. True when a stop gave up on one:
 * the checkpoint records that output and the restart publishes it, so the run must end on this
 * checkpoint (another would find the output still unpublished).
 */
export async function publishSinks(sinks: Iterable<RunningSink>, stop: StopControl | null, seq: number, warn: (m: string) => void): Promise<boolean> {
  let gaveUp = false;
  for (const s of sinks) {
    const published = s.afterCheckpoint?.();
    if (published && (await unlessStopping(published, stop, SINK_ON_STOP_MS)) === 'gave-up') {
      gaveUp = true;
      warn(`sink '${s.def.name}': stopping before the output of checkpoint ${seq} was published (no answer within ${SINK_ON_STOP_MS / 1000} s); the checkpoint records it, and the restart publishes it`);
    }
  }
  return gaveUp;
}

/**
 * Every source's acknowledgement upstream of checkpoint `seq` (Kafka offsets to the group). It
 * is housekeeping: the checkpoint holds the positions, which win on resume, so a failure is a
 * warning (the next checkpoint acknowledges again), and so is a stop giving up on it.
 */
export async function acknowledgeSources(sources: readonly RunningSource[], stop: StopControl | null, seq: number, warn: (m: string) => void): Promise<void> {
  for (const s of sources) {
    try {
      const ack = s.afterCheckpoint?.();
      if (ack && (await unlessStopping(ack, stop, ACK_ON_STOP_MS)) === 'gave-up') {
        warn(`source '${s.def.name}': stopping without acknowledging checkpoint ${seq} upstream (no answer within ${ACK_ON_STOP_MS / 1000} s); the checkpoint holds the positions, and the restart resumes from them`);
      }
    } catch (e) {
      // e.g. a group rebalancing refuses offset commits.
      warn(`source '${s.def.name}': could not acknowledge checkpoint ${seq} upstream (retried at the next checkpoint): ${(e as Error).message}`);
    }
  }
}
