// The interval join's late rule (issue 13 item 1): a row whose time is below the watermark minus the
// allowed lateness joins nothing and goes to ctx.late; every other row finds all its matches. Seeded
// random arrivals (out of order, equal keys, equal times, watermark steps) are checked against an
// independent reference: the watermark at each row's arrival decides lateness, and a brute-force
// pairing of the on-time rows gives the joined rows. Every match of the full data is then either
// joined or has a late member — nothing disappears without being counted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { prng as rng } from '../../fuzz/mutate.ts';
import { IntervalJoinOp } from '../../../targets/runtime/lib/ops/interval-join.ts';
import type { Row } from '../../../targets/runtime/lib/ops/types.ts';

interface Ev {
  side: 'l' | 'r';
  id: number;
  key: number;
  t: number;
}

/** Arrivals with up to `jitter` ms of disorder; after each, the watermark is max time seen - delay. */
function arrivals(seed: number, n: number, jitter: number): Ev[] {
  const r = rng(seed);
  const evs: (Ev & { at: number })[] = [];
  for (let i = 0; i < n; i++) {
    const t = Math.floor(i * 100 + r() * 50);
    evs.push({ side: r() < 0.5 ? 'l' : 'r', id: i, key: Math.floor(r() * 6), t, at: t + Math.floor(r() * jitter) });
  }
  return evs.sort((a, b) => a.at - b.at || a.id - b.id).map(({ side, id, key, t }) => ({ side, id, key, t }));
}

interface Run {
  joined: string[];
  late: { side: string; id: number; lateBy: number }[];
}

const LOWER = -2000; // l.t - r.t in [-2 s, +500 ms]
const UPPER = 500;
const DELAY = 1000;

function runOp(evs: Ev[], joinType: 'inner' | 'left', latenessMs: number): Run {
  const joined: string[] = [];
  const late: Run['late'] = [];
  const op = new IntervalJoinOp(
    {
      id: 'j',
      joinType,
      leftKey: (row) => row[1],
      rightKey: (row) => row[1],
      leftTimeIndex: 2,
      rightTimeIndex: 2,
      lowerMs: LOWER,
      upperMs: UPPER,
      residual: null,
      join: (l, r) => [l[0], r === null ? null : r[0]],
      out: (row) => joined.push(`${String(row[0])}|${String(row[1])}`),
      allowedLatenessMs: latenessMs,
      lateLeft: (l) => [l[0], null, 'left'],
      lateRight: (r) => [null, r[0], 'right'],
    },
    {
      late: (_op, row: Row, lateBy) => late.push({ side: row[2] as string, id: (row[2] === 'left' ? row[0] : row[1]) as number, lateBy }),
      now: () => 0,
    },
  );
  let max = Number.NEGATIVE_INFINITY;
  for (const e of evs) {
    const row: Row = [e.id, e.key, e.t];
    if (e.side === 'l') op.pushLeft(row);
    else op.pushRight(row);
    max = Math.max(max, e.t);
    op.advance(max - DELAY);
  }
  op.advance(Number.POSITIVE_INFINITY);
  return { joined: joined.sort(), late };
}

/** The reference: lateness by the watermark at arrival, then a brute-force join of the on-time rows. */
function reference(evs: Ev[], joinType: 'inner' | 'left', latenessMs: number): Run & { lateIds: Set<number> } {
  let wm = Number.NEGATIVE_INFINITY;
  const onTime: Ev[] = [];
  const late: Run['late'] = [];
  for (const e of evs) {
    if (e.t < wm - latenessMs) late.push({ side: e.side === 'l' ? 'left' : 'right', id: e.id, lateBy: wm - e.t });
    else onTime.push(e);
    wm = Math.max(wm, e.t - DELAY);
  }
  const joined: string[] = [];
  for (const l of onTime.filter((e) => e.side === 'l')) {
    const ms = onTime.filter((r) => r.side === 'r' && r.key === l.key && l.t - r.t >= LOWER && l.t - r.t <= UPPER);
    for (const r of ms) joined.push(`${l.id}|${r.id}`);
    if (ms.length === 0 && joinType === 'left') joined.push(`${l.id}|null`);
  }
  return { joined: joined.sort(), late, lateIds: new Set(late.map((x) => x.id)) };
}

/** Every match of the whole data set, whatever the arrival order. */
function allMatches(evs: Ev[]): [number, number][] {
  const out: [number, number][] = [];
  for (const l of evs) if (l.side === 'l') for (const r of evs) if (r.side === 'r' && r.key === l.key && l.t - r.t >= LOWER && l.t - r.t <= UPPER) out.push([l.id, r.id]);
  return out;
}

for (const joinType of ['inner', 'left'] as const) {
  for (const latenessMs of [0, 3000]) {
    test(`${joinType} interval join, allowed lateness ${latenessMs} ms: late rows are exactly those behind the watermark, the rest join fully (40 seeds)`, () => {
      let lateSeen = 0;
      for (let seed = 1; seed <= 40; seed++) {
        const evs = arrivals(seed, 300, 8000);
        const got = runOp(evs, joinType, latenessMs);
        const want = reference(evs, joinType, latenessMs);
        // Compared as text: a deepEqual diff of long arrays takes minutes to render on failure.
        assert.equal(JSON.stringify(got.late), JSON.stringify(want.late), `seed ${seed}: late rows`);
        assert.equal(got.joined.join(' '), want.joined.join(' '), `seed ${seed}: joined rows`);
        const joined = new Set(got.joined);
        for (const [l, r] of allMatches(evs)) {
          assert.ok(joined.has(`${l}|${r}`) || want.lateIds.has(l) || want.lateIds.has(r), `seed ${seed}: match ${l}|${r} neither joined nor late`);
        }
        lateSeen += got.late.length;
      }
      // 8 s of disorder against a 1 s delay (+ 3 s lateness): the seeds must exercise the late path.
      assert.ok(lateSeen > 0, 'no seed produced a late row');
    });
  }
}

test('in order, nothing is late and every match is joined', () => {
  const evs = arrivals(7, 300, 0);
  const got = runOp(evs, 'inner', 0);
  assert.deepEqual(got.late, []);
  assert.deepEqual(got.joined, allMatches(evs).map(([l, r]) => `${l}|${r}`).sort());
});

test('allowed lateness turns late rows back into joined ones', () => {
  const evs = arrivals(3, 300, 4000);
  const strict = runOp(evs, 'inner', 0);
  const slack = runOp(evs, 'inner', 10_000);
  assert.ok(strict.late.length > 0, 'the seed produced no late row');
  assert.deepEqual(slack.late, []);
  assert.deepEqual(slack.joined, allMatches(evs).map(([l, r]) => `${l}|${r}`).sort());
});
