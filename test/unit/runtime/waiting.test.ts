// A pipeline waiting on a service that does not answer says so (issue 12 item 10): a first
// notice after a few seconds, then one per interval, and none once the wait is over.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { noticeWhileWaiting } from '../../../targets/runtime/lib/io/waiting.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('a long wait is announced after firstMs and then every everyMs, naming what it waits for', async () => {
  const notices: string[] = [];
  let done!: () => void;
  const work = new Promise<void>((r) => (done = r));
  const waiting = noticeWhileWaiting(work, 'Kafka at 127.0.0.1:1 (topic t)', (m) => notices.push(m), 40, 100);
  await sleep(20);
  assert.deepEqual(notices, [], 'nothing before firstMs');
  await sleep(200); // 40 ms, 140 ms: two notices by 220 ms
  assert.ok(notices.length >= 2 && notices.length <= 3, notices.join('\n'));
  assert.match(notices[0]!, /^waiting for Kafka at 127\.0\.0\.1:1 \(topic t\) \(\d+ s so far\)$/);
  done();
  await waiting;
  const n = notices.length;
  await sleep(150);
  assert.equal(notices.length, n, 'no notice once the work settled');
});

test('a quick connection says nothing, and a failure passes through unchanged', async () => {
  const notices: string[] = [];
  assert.equal(await noticeWhileWaiting(Promise.resolve(7), 'x', (m) => notices.push(m), 10, 10), 7);
  await assert.rejects(noticeWhileWaiting(Promise.reject(new Error('refused')), 'x', (m) => notices.push(m), 10, 10), /refused/);
  await sleep(30);
  assert.deepEqual(notices, []);
});
