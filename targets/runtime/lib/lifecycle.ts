// How a run ends, whatever happens: SIGINT/SIGTERM stop it (a checkpoint first, bounded in
// time; a second signal exits at once; exit 130/143), the start checks of the sinks (a missing
// table or topic ends the run at start, naming it), waits on an outside system that a stop
// gives up on after a grace period (`unlessStopping`: a broker that went away), and closing that
// cannot hang (each close is bounded). A run must never outlive its failure: a hung close or a client retrying forever
// used to keep the process serving /metrics and deaf to Ctrl-C.
import type { RunningSink } from './io/sinks.ts';

export const SIGNAL_EXIT: Record<'SIGINT' | 'SIGTERM', number> = { SIGINT: 130, SIGTERM: 143 };

/** How long a stop may take (checkpoint, sink commits, closing) before the process exits anyway. */
export const DEFAULT_STOP_GRACE_MS = 30_000;
/** How long one sink or source may take to close before the run goes on without it. */
export const CLOSE_TIMEOUT_MS = 5_000;
/**
 * How long a source's acknowledgement of a checkpoint upstream (Kafka offsets committed to the
 * group) may take once a stop is asked for: it is housekeeping (the checkpoint holds the
 * positions), and a broker that went away makes the client retry for minutes.
 */
export const ACK_ON_STOP_MS = 3_000;
/**
 * How long a sink's commit, or its publishing after a checkpoint, may take once a stop is asked
 * for. Longer than ACK_ON_STOP_MS: a healthy sink may have many rows to flush. Past it, the stop
 * goes on as a crash at that point would (which the sinks' checkpoint protocol makes safe): no
 * checkpoint, or one whose output the restart publishes.
 */
export const SINK_ON_STOP_MS = 10_000;
/** How long the start check of one sink may take before the run starts without its answer. */
export const START_CHECK_TIMEOUT_MS = 30_000;

export interface StopOptions {
  /** Own the process's SIGINT/SIGTERM (and exit it when a stop overruns). */
  handleSignals: boolean;
  abort?: AbortSignal;
  graceMs: number;
  err: (text: string) => void;
}

/** The run's stop request: set by a signal or the abort signal, read by the run loop. */
export class StopControl {
  stopping = false;
  signal: 'SIGINT' | 'SIGTERM' | null = null;
  private readonly waiters: (() => void)[] = [];
  private timer: NodeJS.Timeout | null = null;
  private readonly onInt = (): void => this.onSignal('SIGINT');
  private readonly onTerm = (): void => this.onSignal('SIGTERM');
  private readonly onAbort = (): void => this.request();

  constructor(private readonly o: StopOptions) {
    if (o.handleSignals) {
      process.on('SIGINT', this.onInt);
      process.on('SIGTERM', this.onTerm);
    }
    o.abort?.addEventListener('abort', this.onAbort);
    if (o.abort?.aborted) this.request();
  }

  /** Resolves once a stop is requested (for waits that must not outlast it). */
  stopped(): Promise<void> {
    if (this.stopping) return Promise.resolve();
    return new Promise((r) => this.waiters.push(r));
  }

  private request(): void {
    if (this.stopping) return;
    this.stopping = true;
    for (const w of this.waiters.splice(0)) w();
  }

  private onSignal(sig: 'SIGINT' | 'SIGTERM'): void {
    const code = SIGNAL_EXIT[sig];
    if (this.signal !== null) {
      this.o.err(`\npipec: ${sig} again: exiting now, without a checkpoint\n`);
      process.exit(code);
    }
    this.signal = sig;
    this.request();
    const secs = Math.round(this.o.graceMs / 1000);
    this.o.err(`\npipec: ${sig}: stopping (checkpoint first, at most ${secs} s; ${sig === 'SIGINT' ? 'Ctrl-C' : 'SIGTERM'} again exits at once)\n`);
    this.deadline(code, `did not stop within ${secs} s of ${sig}`);
  }

  /** A fatal error: the run is closing things down; if that hangs, the process exits anyway. */
  failing(): void {
    this.deadline(1, `did not shut down within ${Math.round(this.o.graceMs / 1000)} s of the failure`);
  }

  private deadline(code: number, why: string): void {
    if (!this.o.handleSignals || this.timer !== null) return;
    this.timer = setTimeout(() => {
      this.o.err(`pipec: ${why}; exiting\n`);
      process.exit(code);
    }, this.o.graceMs);
    this.timer.unref();
  }

  /** The run's exit code: a clean stop by a signal is 128 + its number. */
  exitCode(base: number): number {
    return base === 0 && this.signal !== null ? SIGNAL_EXIT[this.signal] : base;
  }

  dispose(): void {
    if (this.o.handleSignals) {
      process.off('SIGINT', this.onInt);
      process.off('SIGTERM', this.onTerm);
    }
    this.o.abort?.removeEventListener('abort', this.onAbort);
    if (this.timer !== null) clearTimeout(this.timer);
  }
}

/** `p`, or 'timeout' after `ms` (at most 2^31-1; the timer does not keep the process alive). */
export async function within<T>(p: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let t: NodeJS.Timeout | null = null;
  const timeout = new Promise<'timeout'>((r) => {
    t = setTimeout(() => r('timeout'), ms);
    t.unref();
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    if (t !== null) clearTimeout(t);
  }
}

/**
 * `p`, or 'gave-up' when a stop is asked for (before or while it waits) and `p` has not settled
 * within `graceMs` of that: for waits that are housekeeping, which a stop must not wait out.
 */
export async function unlessStopping<T>(p: Promise<T>, stop: StopControl | null, graceMs = ACK_ON_STOP_MS): Promise<T | 'gave-up'> {
  if (stop === null) return p;
  // Given up on, `p` may still fail later: that is no error of the run.
  p.catch(() => undefined);
  const afterStop = stop.stopped().then(() => within(p, graceMs));
  return Promise.race([p, afterStop.then((r) => (r === 'timeout' ? ('gave-up' as const) : r))]);
}

/**
 * Runs every sink's start check (`checkTarget`) at once. Throws the first failure (its message
 * names the sink and what is missing); a check still waiting after `timeoutMs` (a server that
 * does not answer yet) is left to the sink's own retries; a stop request ends the wait.
 */
export async function checkSinkTargets(sinks: RunningSink[], stop: StopControl, warn: (m: string) => void, timeoutMs = START_CHECK_TIMEOUT_MS): Promise<void> {
  const checks = sinks.flatMap((s) =>
    s.checkTarget
      ? [
          within(s.checkTarget(), timeoutMs).then((r) => {
            if (r === 'timeout' && !stop.stopping) warn(`sink '${s.def.name}': could not check its target within ${Math.round(timeoutMs / 1000)} s; starting anyway`);
          }),
        ]
      : [],
  );
  if (checks.length === 0) return;
  await Promise.race([Promise.all(checks), stop.stopped()]);
}
