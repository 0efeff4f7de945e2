// SESSION windows form sessions per PARTITION BY key (one sequence over all rows without
// PARTITION BY) and aggregate per GROUP BY key within each session, as Flink's window TVF does:
// hand-worked cases where that differs from sessions per group key, bridging merges of
// sessions holding several groups, late events, EMIT CHANGES row kinds, a snapshot/restore
// round trip, random events against a sort-and-split reference, and the generated wiring.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SessionAggOp, type SessionAggConfig } from '../../../targets/runtime/lib/ops/session-agg.ts';
import { rowKind, type AggFns, type Row } from '../../../targets/runtime/lib/ops/types.ts';
import { decodeState, encodeState } from '../../../targets/runtime/lib/codec.ts';
import { generateBody } from '../../../targets/runtime/codegen/module.ts';
import { instantiateBody } from '../../../targets/runtime/instantiate-body.ts';
import { PlanBuilder, column, T, agg } from '../../fixtures/plans/builder.ts';

// Rows: [ts, user, page, v]. GROUP BY (user, page), PARTITION BY user unless said otherwise.
// Output: [user, page, window_start, window_end, SUM(v), COUNT(*)].
const byUserPage: AggFns = {
  keyOf: (r) => `${r[1]}|${r[2]}`,
  keyVals: (r) => [r[1], r[2]],
  create: () => [0, 0],
  add: (a, r) => {
    (a[0] as number) += r[3] as number;
    (a[1] as number)++;
  },
  merge: (a, b) => {
    (a[0] as number) += b[0] as number;
    (a[1] as number) += b[1] as number;
  },
  output: (k, ws, we, a) => [...k, ws, we, a[0], a[1]],
};
const byUser: AggFns = { ...byUserPage, keyOf: (r) => r[1], keyVals: (r) => [r[1]] };

function op(cfg: Partial<SessionAggConfig> & { gapMs: number }) {
  const out: Row[] = [];
  const late: [Row, number][] = [];
  const o = new SessionAggOp(
    { id: 's', allowedLatenessMs: 0, emit: 'on_window_close', timeIndex: 0, fns: byUserPage, partitionOf: (r) => r[1], out: (x) => out.push(x), ...cfg },
    { late: (_id, r, by) => late.push([r, by]), now: () => 0 },
  );
  return { o, out, late };
}

test('PARTITION BY user, GROUP BY user, page: session bounds come from all of the user\'s events', () => {
  const { o, out } = op({ gapMs: 10 });
  o.push([0, 'u', 'a', 1]); // u: [0, 10)
  o.push([8, 'u', 'b', 2]); // 8 <= 10: u's session grows to [0, 18)
  o.push([16, 'u', 'a', 4]); // 16 <= 18: [0, 26). Per (u, a) alone this would be a second session [16, 26).
  o.push([5, 'v', 'a', 8]); // another user: its own session [5, 15)
  assert.equal(o.stateSize(), 3, 'accumulators: (u, a), (u, b) in one session, (v, a) in another');
  o.advance(13);
  assert.deepEqual(out, []);
  o.advance(24); // v's session ends at 15: closed at watermark 14 (end - 1)
  assert.deepEqual(out, [['v', 'a', 5, 15, 8, 1]]);
  o.advance(25); // u's: one row per page, both with u's bounds
  assert.deepEqual(out.slice(1), [
    ['u', 'a', 0, 26, 5, 2],
    ['u', 'b', 0, 26, 2, 1],
  ]);
  assert.equal(o.stateSize(), 0);
});

test('PARTITION BY = GROUP BY keys (no partitionOf): sessions per key, as before', () => {
  const { o, out } = op({ gapMs: 10, partitionOf: undefined });
  o.push([0, 'u', 'a', 1]);
  o.push([8, 'u', 'b', 2]);
  o.push([16, 'u', 'a', 4]);
  o.advance(Infinity);
  // (u, a): [0, 10) and [16, 26) stay apart (16 > 10); (u, b): [8, 18). Fired by end, then start.
  assert.deepEqual(out, [
    ['u', 'a', 0, 10, 1, 1],
    ['u', 'b', 8, 18, 2, 1],
    ['u', 'a', 16, 26, 4, 1],
  ]);
});

test('no PARTITION BY: one session sequence over all rows, a row per group key in each session', () => {
  const { o, out } = op({ gapMs: 10, fns: byUser, partitionOf: () => 0 });
  o.push([0, 'u', '-', 1]); // [0, 10)
  o.push([7, 'v', '-', 2]); // [0, 17): v joins u's session (per user it would start its own)
  o.push([14, 'u', '-', 4]); // [0, 24)
  o.push([40, 'v', '-', 8]); // 40 > 24: a new session [40, 50)
  o.advance(Infinity);
  assert.deepEqual(out, [
    ['u', 0, 24, 5, 2],
    ['v', 0, 24, 2, 1],
    ['v', 40, 50, 8, 1],
  ]);
});

/** User u, gap 10: sessions [0,10) {a} and [20,42) {b, a, c}, then t=10 bridges them. */
const bridging: Row[] = [
  [0, 'u', 'a', 1], // S1 [0, 10) {a}
  [30, 'u', 'b', 2], // S2 [30, 40) {b}
  [32, 'u', 'a', 4], // S2 [30, 42) {b, a}
  [20, 'u', 'c', 8], // [20, 30) touches S2 (30 <= 30), not S1 (10 < 20): S2 [20, 42) {b, a, c}
  [10, 'u', 'a', 16], // [10, 20) touches S1 (ends at 10) and S2 (starts at 20): [0, 42)
];
// Merged: a = 1 + 4 + 16 over 3 rows, b = 2, c = 8; S1's groups first, then S2's new ones.
const bridged: Row[] = [
  ['u', 'a', 0, 42, 21, 3],
  ['u', 'b', 0, 42, 2, 1],
  ['u', 'c', 0, 42, 8, 1],
];

test('a bridging event merges two sessions holding several group keys: accumulators merge per key', () => {
  const { o, out } = op({ gapMs: 10 });
  for (const r of bridging.slice(0, 4)) o.push(r);
  assert.equal(o.stateSize(), 4, 'S1 {a}, S2 {b, a, c}');
  o.push(bridging[4]!);
  assert.equal(o.stateSize(), 3, 'one session {a, b, c}');
  o.advance(40);
  assert.deepEqual(out, [], 'the timers of the merged-away sessions (ends 10, 40, 42) do not fire it early');
  o.advance(41); // end 42 - 1
  assert.deepEqual(out, bridged);
  assert.equal(o.stateSize(), 0);
});

test('snapshot → JSON → restore in the middle of the bridging case gives the same rows', () => {
  const a = op({ gapMs: 10 });
  for (const r of bridging.slice(0, 3)) a.o.push(r);
  a.o.advance(5);
  const saved = JSON.parse(JSON.stringify(encodeState(a.o.snapshot())));
  const b = op({ gapMs: 10 });
  b.o.restore(decodeState(saved));
  assert.equal(b.o.stateSize(), 3);
  for (const r of bridging.slice(3)) b.o.push(r);
  b.o.push([-6, 'x', 'a', 99]); // user x: [-6, 4) ends at 4 <= watermark 5: the restored watermark makes it late
  assert.deepEqual(b.late, [[[-6, 'x', 'a', 99], 11]]);
  b.o.advance(40);
  assert.deepEqual(b.out, []);
  b.o.advance(41);
  assert.deepEqual(b.out, bridged);
});

test('late events: an event touching its partition\'s open session is not late; one after the session fired is', () => {
  const { o, out, late } = op({ gapMs: 10, allowedLatenessMs: 5 });
  o.push([0, 'u', 'a', 1]);
  o.push([9, 'u', 'a', 2]); // u: [0, 19), fires at 19 - 1 + 5 = 23
  o.advance(16);
  // (u, b) alone would be [1, 11), 11 + 5 <= 16: late. It touches u's open session instead.
  o.push([1, 'u', 'b', 4]);
  assert.deepEqual(late, []);
  o.advance(24);
  assert.deepEqual(out, [
    ['u', 'a', 0, 19, 3, 2],
    ['u', 'b', 0, 19, 4, 1],
  ]);
  o.push([2, 'u', 'c', 8]); // u has no session left; [2, 12) + 5 <= 24: late by 24 - 2
  o.push([20, 'w', 'a', 16]); // [20, 30) + 5 > 24: on time, its own partition
  assert.deepEqual(late, [[[2, 'u', 'c', 8], 22]]);
  o.advance(Infinity);
  assert.deepEqual(out.slice(2), [['w', 'a', 20, 30, 16, 1]]);
});

test('EMIT CHANGES: a group\'s row per event; when the bounds move, the touched sessions\' rows are deleted and the merged one\'s inserted', () => {
  const { o, out } = op({ gapMs: 10, emit: 'changes' });
  const kinds = (): string[] => out.map((r) => `${rowKind(r)} ${r.join(',')}`);
  for (const r of bridging) o.push(r);
  o.push([31, 'u', 'b', 32]); // [31, 41) inside [0, 42): bounds stay, only b's row
  assert.deepEqual(kinds(), [
    '+I u,a,0,10,1,1', // S1 opens
    '+I u,b,30,40,2,1', // S2 opens
    '-D u,b,30,40,2,1', // S2's end moves: its row under the old bounds goes ...
    '+I u,b,30,42,2,1', // ... and comes back under the new ones, with a, new in S2
    '+I u,a,30,42,4,1',
    '-D u,b,30,42,2,1', // S2's start moves to 20
    '-D u,a,30,42,4,1',
    '+I u,b,20,42,2,1',
    '+I u,a,20,42,4,1',
    '+I u,c,20,42,8,1',
    '-D u,a,0,10,1,1', // the bridge: S1's and S2's rows go ...
    '-D u,b,20,42,2,1',
    '-D u,a,20,42,4,1',
    '-D u,c,20,42,8,1',
    '+I u,a,0,42,21,3', // ... the merged session's come (S1's groups first)
    '+I u,b,0,42,2,1',
    '+I u,c,0,42,8,1',
    '+U u,b,0,42,34,2', // bounds unchanged: an update of b's row
  ]);
  o.advance(Infinity);
  assert.equal(out.length, 18, 'firing emits nothing more with EMIT CHANGES');
  assert.equal(o.stateSize(), 0);
});

test('EMIT CHANGES: a session opening at the start of a closed one is a new row, not an update of the closed one', () => {
  const { o, out } = op({ gapMs: 10, emit: 'changes' });
  o.push([0, 'u', 'a', 1]);
  o.push([2, 'u', 'a', 2]); // [0, 12)
  o.advance(11); // closes [0, 12)
  o.push([5, 'u', 'a', 4]); // [5, 15): open (14 > 11), a new session
  o.push([0, 'u', 'a', 8]); // [0, 10) touches [5, 15): [0, 15), the same start as the closed one
  o.advance(Infinity);
  const table = upsertTable(out);
  assert.deepEqual([...table.values()].map((x) => x.join(',')), ['u,a,0,12,3,2', 'u,a,0,15,12,2']);
});

/** The table an upsert consumer keeps from EMIT CHANGES rows: by group key + window_start + window_end, '-D' removes. */
function upsertTable(rows: Row[]): Map<string, Row> {
  const m = new Map<string, Row>();
  for (const x of rows) {
    const k = `${x[0]}|${x[1]}|${x[2]}|${x[3]}`;
    if (rowKind(x) === '-D') {
      assert.ok(m.has(k), `'-D' of a row never sent: ${x.join(',')}`);
      m.delete(k);
    } else {
      assert.equal(m.has(k), rowKind(x) === '+U', `${rowKind(x)} ${x.join(',')}: '+U' exactly when the key has a row`);
      m.set(k, x);
    }
  }
  return m;
}

test('EMIT CHANGES over 5,000 random out-of-order events: the upsert table ends as the closed sessions\' rows', () => {
  const r = rnd(19);
  const events: Row[] = [];
  for (let i = 0; i < 5000; i++) events.push([i * 4 - Math.floor(r() * 300), `u${Math.floor(r() * 20)}`, `p${Math.floor(r() * 3)}`, Math.floor(r() * 100)]);
  const closed = op({ gapMs: 40 });
  const changes = op({ gapMs: 40, emit: 'changes' });
  let max = -Infinity;
  let moves = 0;
  for (const e of events) {
    const before = changes.out.length;
    closed.o.push(e);
    changes.o.push(e);
    if (changes.out.slice(before).some((x) => rowKind(x) === '-D')) moves++;
    if ((e[0] as number) > max) {
      max = e[0] as number;
      closed.o.advance(max - 400);
      changes.o.advance(max - 400);
    }
  }
  closed.o.advance(Infinity);
  changes.o.advance(Infinity);
  assert.ok(moves > 100, `${moves} events moved or merged sessions`);
  const final = [...upsertTable(changes.out).values()].map((x) => x.join(',')).sort();
  assert.deepEqual(final, closed.out.map((x) => x.join(',')).sort());
});

function rnd(seed: number): () => number {
  let s = seed;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

/** Reference: per partition, sort by time, a new session where the step exceeds the gap. */
function reference(events: Row[], gap: number, part: (r: Row) => unknown): Map<string, [number, number]> {
  const byPart = new Map<unknown, Row[]>();
  for (const e of events) byPart.set(part(e), [...(byPart.get(part(e)) ?? []), e]);
  const m = new Map<string, [number, number]>();
  for (const rows of byPart.values()) {
    rows.sort((x, y) => (x[0] as number) - (y[0] as number));
    let i = 0;
    while (i < rows.length) {
      let j = i + 1;
      while (j < rows.length && (rows[j]![0] as number) - (rows[j - 1]![0] as number) <= gap) j++;
      const ws = rows[i]![0] as number;
      const we = (rows[j - 1]![0] as number) + gap;
      for (const r of rows.slice(i, j)) {
        const k = `${r[1]}|${r[2]}|${ws}|${we}`;
        const x = m.get(k) ?? [0, 0];
        x[0] += r[3] as number;
        x[1]++;
        m.set(k, x);
      }
      i = j;
    }
  }
  return m;
}

for (const [name, part] of [
  ['PARTITION BY user', (r: Row) => r[1]],
  ['no PARTITION BY', () => 0],
] as const) {
  test(`${name}, GROUP BY user, page: 5,000 random out-of-order events equal sort-and-split sessions`, () => {
    const r = rnd(name.length);
    const events: Row[] = [];
    // ~4 ms apart, up to 300 ms early, gap 40 ms: per user sessions both merge and split.
    const step = name === 'no PARTITION BY' ? 40 : 4;
    for (let i = 0; i < 5000; i++) events.push([i * step - Math.floor(r() * 300), `u${Math.floor(r() * 20)}`, `p${Math.floor(r() * 3)}`, Math.floor(r() * 100)]);
    const { o, out, late } = op({ gapMs: 40, partitionOf: part });
    let max = -Infinity;
    for (const e of events) {
      o.push(e);
      if ((e[0] as number) > max) o.advance((max = e[0] as number) - 400); // delay > disorder
    }
    o.advance(Infinity);
    assert.equal(late.length, 0);
    const got = new Map(out.map((x) => [`${x[0]}|${x[1]}|${x[2]}|${x[3]}`, [x[4], x[5]]]));
    assert.equal(got.size, out.length, 'one row per (session, group key)');
    const want = reference(events, 40, part);
    assert.ok(want.size > 200, `${want.size} rows`);
    assert.deepEqual(got, want);
  });
}

/** The generated module's session operator for PARTITION BY `partitionBy`, GROUP BY `keys`, fed rows [ts, user, page]. */
function generated(partitionBy: string[], keys: string[]): { body: string; run: (rows: Row[]) => Row[] } {
  const b = new PlanBuilder('sessions');
  b.source({
    name: 'ev',
    connector: 'file',
    format: 'ndjson',
    columns: [column('ts', T.timestamp(3)), column('user', T.string()), column('page', T.string())],
    watermark: { column: 'ts', delayMs: 0, idleTimeoutMs: null },
    options: { path: 'unused.ndjson' },
  });
  const w = b.windowAgg(b.scan('ev', 'scan'), { id: 'w', window: { kind: 'session', gapMs: 10, partitionBy }, time: 'ts', keys, aggregates: () => [agg.countStar('n')], late: { kind: 'drop' } });
  b.sink({ name: 'out', connector: 'stdout', input: w });
  const body = generateBody(b.build()).body;
  const run = (rows: Row[]): Row[] => {
    const def = instantiateBody(body, {});
    const out: Row[] = [];
    let op: SessionAggOp | null = null;
    const unused = (): never => {
      throw new Error('unused');
    };
    const inst = def.instantiate({
      sink: () => ({ def: def.sinks[0]!, rowsOut: 0, write: (r: Row) => void out.push(r), flush() {}, commit: async () => null, open() {}, close: async () => {} }),
      sessionAgg: (cfg) => (op = new SessionAggOp(cfg, { late: () => {}, now: () => 0 })),
      windowAgg: unused,
      groupAgg: unused,
      intervalJoin: unused,
    });
    const emit = Object.values(inst.emit)[0]!;
    for (const r of rows) emit(r);
    op!.advance(Infinity);
    return out;
  };
  return { body, run };
}

test('generated code: a partition key function only when PARTITION BY differs from the GROUP BY keys', () => {
  const rows: Row[] = [
    [0, 'u', 'a'],
    [8, 'u', 'b'], // per user: [0, 18); per (user, page): (u, b) [8, 18) apart from (u, a) [0, 10)
    [5, 'v', 'a'], // without PARTITION BY: joins [0, 18) too
  ];
  const same = generated(['user', 'page'], ['page', 'user']);
  assert.doesNotMatch(same.body, /partitionOf/);
  const sortRows = (x: Row[]): string[] => x.map((r) => JSON.stringify(r)).sort();
  // Output rows: keys, window_start, window_end (epoch milliseconds), n.
  assert.deepEqual(sortRows(same.run(rows)), sortRows([['a', 'u', 0, 10, 1], ['b', 'u', 8, 18, 1], ['a', 'v', 5, 15, 1]]));

  const perUser = generated(['user'], ['user', 'page']);
  assert.match(perUser.body, /function part_w\(r\) \{\n\s*return r\[1\];/);
  assert.match(perUser.body, /partitionOf: part_w/);
  assert.deepEqual(sortRows(perUser.run(rows)), sortRows([['u', 'a', 0, 18, 1], ['u', 'b', 0, 18, 1], ['v', 'a', 5, 15, 1]]));

  const global = generated([], ['page']);
  assert.match(global.body, /function part_w\(r\) \{\n\s*return 0;/);
  assert.deepEqual(sortRows(global.run(rows)), sortRows([['a', 0, 18, 2], ['b', 0, 18, 1]]));
});
