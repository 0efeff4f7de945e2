// Says what a pipeline is waiting for when connecting takes long: a client retrying a broker
// that is down is silent for minutes, and a silent pipeline looks hung. The first notice comes
// after a few seconds, then one at an interval, until the work settles.

/**
 * Awaits `work`; after `firstMs` and then every `everyMs` calls `warn` with
 * `waiting for <what> (<n> s so far)`.
 */
export async function noticeWhileWaiting<T>(work: Promise<T>, what: string, warn: (message: string) => void, firstMs = 5000, everyMs = 15000): Promise<T> {
  const t0 = Date.now();
  let timer: ReturnType<typeof setTimeout> | null = null;
  const arm = (delay: number): void => {
    timer = setTimeout(() => {
      warn(`waiting for ${what} (${Math.round((Date.now() - t0) / 1000)} s so far)`);
      arm(everyMs);
    }, delay);
    // Waiting must not keep a process alive that has nothing else to do.
    timer.unref?.();
  };
  arm(firstMs);
  try {
    return await work;
  } finally {
    if (timer !== null) clearTimeout(timer);
  }
}
