// The typed errors that end a run, and the one table of exit codes the entry points (the
// bundle's `main`, `pipec run` through runner.ts) pick from them. The engine never prints
// these nor exits: it throws (or reports, for failures while running) a RunError, whose message
// names what and where, and the entry point prints `pipec: <message>` and exits with
// EXIT_CODES[code]. A library user of `start()` gets the same errors from `RunHandle.done`.
import { CHECKPOINT_EXIT_CODE } from './checkpoint.ts';
import { LOCKED_EXIT_CODE } from './checkpoint-lock.ts';
import { SIGNAL_EXIT } from './lifecycle.ts';

/**
 * - `usage`: the pipeline cannot run as started (no checkpoint directory for a scaled-out
 *   pipeline, a bad member id, a connector this build lacks, the metrics port taken);
 * - `config`: a connector refused its options or what it was given at start;
 * - `checkpoint`: the checkpoint cannot be resumed from, or an output disagrees with it;
 * - `locked`: another run holds the checkpoint directory;
 * - `failed`: the run failed while running (or could not write its checkpoint).
 */
export type RunErrorCode = 'usage' | 'config' | 'checkpoint' | 'locked' | 'failed';

export class RunError extends Error {
  constructor(
    readonly code: RunErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'RunError';
  }
}

export class RunUsageError extends RunError {
  constructor(message: string) {
    super('usage', message);
  }
}

export class ConnectorStartError extends RunError {
  constructor(message: string) {
    super('config', message);
  }
}

export class CheckpointRefusedError extends RunError {
  constructor(message: string) {
    super('checkpoint', message);
  }
}

export class CheckpointLockedError extends RunError {
  constructor(message: string) {
    super('locked', message);
  }
}

export class RunFailedError extends RunError {
  constructor(message: string) {
    super('failed', message);
  }
}

/** Exit code per error code (docs/security.md lists 65 and 75). */
export const EXIT_CODES: Readonly<Record<RunErrorCode, number>> = {
  usage: 2,
  config: 2,
  checkpoint: CHECKPOINT_EXIT_CODE,
  locked: LOCKED_EXIT_CODE,
  failed: 1,
};

/** How a run that did not fail ended. */
export interface RunResult {
  /**
   * `finished`: end of input (or, resumed, the input had already ended); `stopped`: by
   * `stop()`, the abort signal, a signal, or stdout closing under it.
   */
  how: 'finished' | 'stopped';
  /** The signal that stopped it, if one did (exit 128 + its number). */
  signal: 'SIGINT' | 'SIGTERM' | null;
}

/** The exit code of a run's result or of the RunError that ended it. */
export function exitCodeOf(r: RunResult | RunError): number {
  if (r instanceof RunError) return EXIT_CODES[r.code];
  return r.signal !== null ? SIGNAL_EXIT[r.signal] : 0;
}
