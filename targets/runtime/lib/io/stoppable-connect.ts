// A connector's connect that a stop may give up on: kafkajs retries a broker that is down for
// minutes, and a stop asked for before the connect came must not wait for it (nothing was read
// or sent yet). The Kafka source and sink hold one each; `interrupt` is their
// `RunningSource.interrupt` / `RunningSink.interrupt`.

export class StoppableConnect {
  private started: Promise<void> | null = null;
  private done = false;
  private stopped = false;
  private wakeStop: () => void = () => {};
  private readonly stop = new Promise<void>((wake) => (this.wakeStop = wake));

  /** The connect succeeded. */
  get connected(): boolean {
    return this.done;
  }

  /** A stop was asked for (the waiting notices go quiet then). */
  get stopAsked(): boolean {
    return this.stopped;
  }

  get begun(): boolean {
    return this.started !== null;
  }

  /** Starts waiting on `started` (once); a failure of it given up on by a stop is no error of the run. */
  begin(started: Promise<void>): void {
    this.started = started;
    started.then(
      () => (this.done = true),
      () => undefined,
    );
  }

  interrupt(): void {
    this.stopped = true;
    this.wakeStop();
  }

  /** True once connected; false when a stop came first; rejects with the connect's own failure. */
  async wait(): Promise<boolean> {
    if (this.done) return true;
    if (this.started === null) return !this.stopped;
    await Promise.race([this.started, this.stop]);
    return this.done;
  }
}
