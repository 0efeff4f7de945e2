// unlessStopping (lifecycle.ts): a housekeeping wait (a source acknowledging a checkpoint
// upstream) is awaited as usual while the run goes on, and given up a grace period after a stop
// is asked for, so a broker that went away cannot hold the stop up to its deadline.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { StopControl, unlessStopping } from '../../../targets/runtime/lib/lifecycle.ts';

// The grace timer does not keep a process alive (in a run, the client it waits on does): here a
// timer does, or the process would end before the grace period does.
let keepAlive: NodeJS.Timeout;
before(() => void (keepAlive = setInterval(() => {}, 1000)));
after(() => clearInterval(keepAlive));

const later = <T>(ms: number, v: T): Promise<T> => new Promise((r) => setTimeout(() => r(v), ms));
const never = new Promise<string>(() => {});

function control(): { stop: StopControl; ask: () => void } {
  const abort = new AbortController();
  const stop = new StopControl({ handleSignals: false, abort: abort.signal, graceMs: 30_000, err: () => {} });
  return { stop, ask: () => abort.abort() };
}

test('without a stop the wait is the promise itself, however long it takes', async () => {
  const { stop } = control();
  assert.equal(await unlessStopping(later(80, 'acked'), stop, 10), 'acked');
  assert.equal(await unlessStopping(later(5, 'acked'), null, 10), 'acked');
});

test('a stop asked for while waiting gives up after the grace period', { timeout: 5000 }, async () => {
  const { stop, ask } = control();
  const t0 = Date.now();
  setTimeout(ask, 30);
  assert.equal(await unlessStopping(never, stop, 50), 'gave-up');
  const ms = Date.now() - t0;
  assert.ok(ms >= 75 && ms < 1000, `gave up after ${ms} ms (stop at 30 ms, grace 50 ms)`);
});

test('after a stop, an answer within the grace period still counts, and a failure still throws', async () => {
  const { stop, ask } = control();
  ask();
  assert.equal(await unlessStopping(later(10, 'acked'), stop, 200), 'acked');
  await assert.rejects(unlessStopping(Promise.reject(new Error('offset commit refused')), stop, 200), /offset commit refused/);
});

test('a promise given up on that fails later is no unhandled rejection', { timeout: 5000 }, async () => {
  const { stop, ask } = control();
  ask();
  const failing = new Promise((_, reject) => setTimeout(() => reject(new Error('late failure')), 40));
  assert.equal(await unlessStopping(failing, stop, 10), 'gave-up');
  // The test runner fails the file on an unhandled rejection: give it the time to happen.
  await later(80, null);
});
