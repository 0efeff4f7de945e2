// KeyedMinHeap (targets/runtime/lib/heap.ts), the SESSION window's timer queue: items come out
// in (time, seq) order, whatever the order of pushes and pops interleaved with them — checked
// against sorting the same entries, over random runs with many equal times (the tie-break).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KeyedMinHeap } from '../../../targets/runtime/lib/heap.ts';
import { prng } from '../../support/prng.ts';

interface Entry {
  t: number;
  seq: number;
}
const before = (a: Entry, b: Entry) => a.t - b.t || a.seq - b.seq;

test('pops in (time, seq) order under random interleaved pushes and pops, past the first growth', () => {
  for (let run = 0; run < 50; run++) {
    const rnd = prng(run + 1);
    const heap = new KeyedMinHeap<Entry>();
    const held: Entry[] = [];
    let seq = 0;
    for (let step = 0; step < 4000; step++) {
      if (rnd() < 0.6 || held.length === 0) {
        // Times from a narrow range: many ties, broken by seq.
        const x = { t: 1_700_000_000_000 + Math.floor(rnd() * 50), seq: seq++ };
        heap.push(x, x.t, x.seq);
        held.push(x);
      } else {
        held.sort(before);
        const want = held.shift()!;
        assert.equal(heap.peekT(), want.t);
        assert.equal(heap.peekSeq(), want.seq);
        assert.equal(heap.pop(), want, `run ${run} step ${step}`);
      }
      assert.equal(heap.size, held.length);
    }
    held.sort(before);
    for (const want of held) assert.equal(heap.pop(), want);
    assert.equal(heap.pop(), undefined);
    assert.ok(Number.isNaN(heap.peekT()));
  }
});

test('the keys are those given at push, not the item’s later values', () => {
  const heap = new KeyedMinHeap<{ end: number }>();
  const a = { end: 10 };
  const b = { end: 20 };
  heap.push(a, a.end, 1);
  heap.push(b, b.end, 2);
  a.end = 30; // a session whose bounds moved after its entry was pushed
  assert.equal(heap.pop(), a, 'still ordered by the pushed time 10');
  assert.equal(heap.pop(), b);
});
