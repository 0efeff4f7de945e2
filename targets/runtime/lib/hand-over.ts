// The partition tasks one member of a scaled-out pipeline holds, and the hand-over protocol
// that moves them between members when the consumer group rebalances (member-store.ts says
// how the store decides which entry is the newest). The runner calls `handOver()` at the top
// of its loop — never inside a checkpoint — and routes each row through `row()`.
import { compareState } from './shared/state-compat.ts';
import type { RunningSource } from './io/source-types.ts';
import type { PipelineDef } from './pipeline-types.ts';
import { rowKind, type Row, type StatefulOp } from './ops/types.ts';
import type { PartitionClock, SourceClock } from './watermarks.ts';
import { HandoverError, type FoundEntry, type MemberStore, type TaskEntry } from './member-store.ts';
import { PartitionTask, partitionWatermark, type Instantiate } from './partition-tasks.ts';

/**
 * How long a member that won a partition waits for its previous holder to release the
 * partition's state before it continues from the holder's last checkpoint (the holder died).
 * Kept well under the consumer's 30 s session timeout: the wait holds this member's fetches.
 */
export const HANDOVER_TIMEOUT_MS = 15_000;

/** What the hand-over needs of the runner's one (Kafka) source. */
export interface TaskSource {
  id: string;
  src: RunningSource;
  parts: PartitionClock[];
  clock: SourceClock;
  /** The source declares a watermark. */
  timed: boolean;
}

export interface HandOverContext {
  def: PipelineDef;
  member: string;
  store: MemberStore;
  source: TaskSource;
  instantiate: Instantiate;
  countLate: (opId: string) => void;
  now: () => number;
  /** Processing time as of the current poll (the runner's batch clock). */
  batchNow: () => number;
  warn: (message: string) => void;
  /** A row the runner must dead-letter (coordinates of partition `p`). */
  dead: (p: number, reason: string, row: Row) => void;
  /** Takes a checkpoint; its document includes `entries()`. */
  checkpoint: () => Promise<void>;
}

export class HandOver {
  /** Tasks by partition index. */
  private readonly tasks: (PartitionTask | undefined)[] = [];
  /** Final states of partitions this member lost: kept in every checkpoint until the partition is won again. */
  private readonly released: Record<string, TaskEntry> = {};
  /** Partitions won and waiting for their state, with the time the wait for the holder ends. */
  private readonly awaiting = new Map<number, number>();
  private lastLook = 0;

  constructor(private readonly c: HandOverContext) {}

  live(): PartitionTask[] {
    return this.tasks.filter((t): t is PartitionTask => t !== undefined);
  }

  ops(): StatefulOp[] {
    return this.live().flatMap((t) => t.ops);
  }

  private partitionId(p: number): string {
    return this.c.source.parts[p]!.id;
  }

  private advance(t: PartitionTask): void {
    const s = this.c.source;
    t.advanceTo(partitionWatermark(t.clock, s.timed, s.clock.delayMs, this.c.batchNow()));
  }

  /** Every task's watermark from its partition's clock (after idleness or an end changed). */
  advanceAll(): void {
    for (const t of this.live()) this.advance(t);
  }

  /** A row of partition `p`: to its task, then the partition's clock (and the task's watermark). */
  row(p: number, row: Row): void {
    const t = this.tasks[p];
    // Rows arrive only for partitions whose task exists (a won partition is read once its task is built).
    if (t === undefined) throw new Error(`internal: a row of partition ${this.partitionId(p)} has no task on member '${this.c.member}'`);
    const def = this.c.source.src.def;
    const ti = def.timeIndex;
    if (ti < 0) {
      t.emit(row);
      return;
    }
    const ts = row[ti];
    if (ts === null) {
      // A key-only retraction says nothing about event time and must still reach the operators.
      const kind = rowKind(row);
      if (kind === '-U' || kind === '-D') t.emit(row);
      else this.c.dead(p, `watermark column ${def.columns[ti]!.name} is NULL`, row);
      return;
    }
    t.emit(row);
    const part = t.clock;
    if ((ts as number) > part.maxTs || part.idle) {
      this.c.source.clock.observe(part, ts as number, this.c.batchNow());
      this.advance(t);
    } else part.lastSeen = this.c.batchNow();
  }

  /**
   * Every task's entry and the entries this member released; `releaseAll` (a member that stops)
   * releases its tasks too, so their next holders need not wait for it.
   */
  entries(releaseAll: boolean): Record<string, TaskEntry> {
    const out: Record<string, TaskEntry> = { ...this.released };
    for (const t of this.live()) out[this.partitionId(t.index)] = t.snapshot(this.c.source.src.partitionPosition?.(t.index) ?? null, releaseAll);
    return out;
  }

  /**
   * A restarted member holds no partition until the group assigns it some: whatever its
   * checkpoint held is released (as of that checkpoint, which its sinks agree with), so the
   * members that took those partitions over need not wait for it. Returns the entries to write.
   */
  releaseResumed(tasks: Record<string, TaskEntry>): Record<string, TaskEntry> {
    for (const [pid, e] of Object.entries(tasks)) this.released[pid] = { ...e, released: true };
    return { ...this.released };
  }

  /** Applies rebalances: releases lost partitions' tasks (a checkpoint), builds won ones from the store. */
  async handOver(): Promise<void> {
    const { source, now } = this.c;
    const change = source.src.takeAssignmentChange?.() ?? null;
    if (change !== null) {
      let released = false;
      for (const p of change.revoked) {
        this.awaiting.delete(p);
        const t = this.tasks[p];
        if (t === undefined) continue;
        this.released[this.partitionId(p)] = t.snapshot(source.src.partitionPosition?.(p) ?? null, true);
        this.tasks[p] = undefined;
        released = true;
      }
      // The new holder waits for this checkpoint: it holds everything read from the partition.
      if (released) await this.c.checkpoint();
      for (const p of change.added) this.awaiting.set(p, now() + HANDOVER_TIMEOUT_MS);
    }
    if (this.awaiting.size === 0 || now() - this.lastLook < 100) return;
    this.lastLook = now();
    const started: [number, number | null][] = [];
    // One read of the store for every waiting partition.
    const docs = this.c.store.read();
    for (const [p, deadline] of this.awaiting) {
      const t = this.take(p, deadline, docs);
      if (t === null) continue;
      this.tasks[p] = t.task;
      this.awaiting.delete(p);
      started.push([p, t.next]);
    }
    if (started.length === 0) return;
    // Holding the partitions (a checkpoint) before reading them: a later holder then always
    // finds an entry for every record this member reads. The positions are set first (records
    // reach the tasks only in poll()) so that this checkpoint's entries carry the position their
    // state belongs to: an entry with restored state and no position would be resumed by the
    // next holder from the start of the partition, counting its records twice.
    for (const [p, next] of started) await source.src.startPartition!(p, next);
    await this.c.checkpoint();
  }

  /** Builds partition `p`'s task from the newest entry once its holder released it (or the wait ended); null: wait on. */
  private take(p: number, deadline: number, docs: ReturnType<MemberStore['read']>): { task: PartitionTask; next: number | null } | null {
    const { def, member, store, source, now } = this.c;
    const pid = this.partitionId(p);
    const found = store.latest(pid, docs);
    if (found && !found.entry.released && found.member !== member) {
      if (now() < deadline) return null;
      this.c.warn(`member '${found.member}' did not release partition ${pid} within ${HANDOVER_TIMEOUT_MS / 1000} s; continuing from its last checkpoint (rows it wrote after that checkpoint and committed may repeat)`);
    }
    // A task carries source positions and operator state: those parts' fingerprints must match
    // (state-compat.ts; sinks are the member's own). Older formats: the same whole plan.
    const fits = (f: FoundEntry): boolean =>
      f.state ? compareState({ ...f.state, sinks: {} }, { ...def.state, sinks: {} }).resumes : f.fingerprint === def.fingerprint;
    if (found && !fits(found)) {
      throw new HandoverError(`partition ${pid}'s state was checkpointed by member '${found.member}' running a different version of pipeline '${def.name}'; run one version per consumer group`);
    }
    const task = new PartitionTask(p, source.parts[p]!, (found?.entry.epoch ?? 0) + 1, source.id, this.c.instantiate, this.c.countLate);
    if (found) task.restore(found.entry);
    // The partition is read from now on: it is neither idle nor stale.
    task.clock.idle = false;
    task.clock.lastSeen = now();
    delete this.released[pid];
    return { task, next: found?.entry.next ?? null };
  }
}
