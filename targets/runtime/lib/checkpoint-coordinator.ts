// The engine's checkpoints: the directory's lock (held from before the checkpoint is read until
// the run has returned), reading and checking what a restart resumes from, and taking a
// checkpoint — sinks commit, the document is written atomically, and only then may sources and
// sinks acknowledge upstream. Refusals are typed (run-errors.ts); nothing here prints.
import { checkFits, CheckpointError, readCheckpoint, startOverAdvice, writeCheckpoint, type CheckpointDoc } from './checkpoint.ts';
import { CheckpointLock, LockedError } from './checkpoint-lock.ts';
import type { PlanParts } from './checkpoint-shape.ts';
import { writeError } from './io/sinks.ts';
import type { Metrics } from './metrics.ts';
import { CheckpointLockedError, CheckpointRefusedError, RunFailedError } from './run-errors.ts';

/** What a checkpoint document is made of at the moment it is taken (the engine's parts). */
export interface CheckpointParts {
  /** Sinks commit first: their progress is what the document records. */
  commitSinks(): Promise<Record<string, unknown>>;
  /** The rest of the document (sources, operators, tasks, dead letters, late counts), read after the commits. */
  body(finished: boolean): Omit<CheckpointDoc, 'version' | 'pipeline' | 'fingerprint' | 'state' | 'seq' | 'finished' | 'sinks'>;
  /** Acknowledge upstream once the checkpoint is durable (Kafka offsets, two-phase sinks). */
  afterCheckpoint(seq: number): Promise<void>;
}

export class CheckpointCoordinator {
  private lock: CheckpointLock | null = null;
  /** The sequence number of the last checkpoint taken or resumed from. */
  seq = 0;

  constructor(
    /** The directory (absolute; scaled out, this member's own), or null when the run takes no checkpoints. */
    readonly dir: string | null,
    private readonly pipeline: { name: string; fingerprint: string; state: CheckpointDoc['state'] },
    private readonly metrics: Metrics,
    private readonly now: () => number,
  ) {}

  /**
   * Locks the directory and reads its checkpoint (null: none, or no directory). Before any
   * connector exists: a second run on the directory, or a checkpoint that cannot be resumed
   * from, ends the run before anything is written.
   */
  open(): CheckpointDoc | null {
    const dir = this.dir;
    if (!dir) return null;
    try {
      this.lock = CheckpointLock.acquire(dir, this.pipeline.name);
    } catch (e) {
      if (e instanceof LockedError) throw new CheckpointLockedError(e.message);
      // The directory itself cannot be made or written (a file in the way, no permission, no space).
      const x = e as NodeJS.ErrnoException;
      if (typeof x?.code !== 'string') throw e;
      throw new RunFailedError(`pipeline '${this.pipeline.name}': cannot write the checkpoint in ${dir}: ${x.code} (${x.message})`);
    }
    let doc: CheckpointDoc | null;
    try {
      doc = readCheckpoint(dir);
    } catch (e) {
      if (!(e instanceof CheckpointError)) throw e;
      throw new CheckpointRefusedError(`${e.message}. ${startOverAdvice(dir)}`);
    }
    if (doc) this.seq = doc.seq;
    return doc;
  }

  /**
   * Every part of the plan must find its entry in the resumed checkpoint (and nothing else):
   * one missing would start from nothing while the others resume.
   */
  checkFits(doc: CheckpointDoc, parts: PlanParts): void {
    try {
      checkFits(this.dir!, doc, parts);
    } catch (e) {
      if (!(e instanceof CheckpointError)) throw e;
      throw new CheckpointRefusedError(`${e.message}. ${startOverAdvice(this.dir!)}`);
    }
  }

  /** Rewrites the resumed document (a restarted member releasing its tasks, hand-over.ts). */
  rewrite(doc: CheckpointDoc): void {
    writeCheckpoint(this.dir!, doc);
  }

  /** Takes a checkpoint: sinks commit; with a directory, the document is written and upstream acknowledged. */
  async take(parts: CheckpointParts, finished: boolean): Promise<void> {
    const t0 = performance.now();
    const sinks = await parts.commitSinks();
    const body = parts.body(finished);
    const doc: CheckpointDoc = {
      version: 3,
      pipeline: this.pipeline.name,
      fingerprint: this.pipeline.fingerprint,
      state: this.pipeline.state,
      seq: ++this.seq,
      finished,
      sources: body.sources,
      operators: body.operators,
      ...(body.member !== undefined ? { member: body.member, tasks: body.tasks } : {}),
      sinks,
      deadLetters: body.deadLetters,
      late: body.late,
    };
    if (!this.dir) return;
    try {
      this.metrics.lastCheckpointBytes = writeCheckpoint(this.dir, doc);
    } catch (e) {
      // Say that it was the checkpoint, and where (fs messages of ENOSPC name no file).
      throw writeError('the checkpoint in', this.dir, e);
    }
    this.metrics.checkpoints++;
    this.metrics.lastCheckpointAt = this.now();
    this.metrics.lastCheckpointMs = performance.now() - t0;
    // Only now, with sinks durable and positions recorded, may sources acknowledge upstream
    // (e.g. commit Kafka offsets).
    await parts.afterCheckpoint(this.seq);
  }

  /** Releases the directory's lock (the run has returned, whichever way). */
  release(): void {
    this.lock?.release();
    this.lock = null;
  }
}
