// Integer overflow as Flink SQL (issue 19.2): SUM(INT) is INT and wraps at 32 bits, SUM(BIGINT)
// and AVG(BIGINT)'s sum wrap at 64 bits (AVG(INT)'s at 32), INT/BIGINT arithmetic wraps, CAST narrows like Java.
// Each expected value is computed here with exact BigInt arithmetic and an explicit wrap
// (BigInt.asIntN), independently of the runtime's number/BigInt code.
import { test } from 'node:test';
import { prng as rng } from '../../support/prng.ts';
import assert from 'node:assert/strict';
import { big, runSql } from './sql-run.ts';

const I32 = (v: bigint): bigint => BigInt.asIntN(32, v);
const I64 = (v: bigint): bigint => BigInt.asIntN(64, v);
const INT_MIN = -(2n ** 31n);
const INT_MAX = 2n ** 31n - 1n;
const BIG_MIN = -(2n ** 63n);
const BIG_MAX = 2n ** 63n - 1n;

const AGG_SQL = `
CREATE SOURCE ev (
  ts TIMESTAMP(3),
  k STRING,
  i INT,
  b BIGINT,
  WATERMARK FOR ts AS ts - INTERVAL '0' SECOND
) WITH (connector = 'file', path = 'ev.ndjson', format = 'ndjson');

CREATE VIEW w AS
SELECT window_start, k, SUM(i) AS si, SUM(b) AS sb, AVG(i) AS ai, AVG(b) AS ab, COUNT(i) AS ci
FROM TUMBLE(ev, ts, INTERVAL '5' SECOND)
GROUP BY window_start, window_end, k;

CREATE VIEW g AS
SELECT k, SUM(i) AS si, SUM(b) AS sb, AVG(i) AS ai, AVG(b) AS ab, COUNT(i) AS ci
FROM ev
GROUP BY k;

CREATE SINK out FROM w WITH (connector = 'file', path = 'out.ndjson', format = 'ndjson');
CREATE SINK gout FROM g WITH (connector = 'file', path = 'g.ndjson', format = 'ndjson');
`;

interface Ev {
  t: number;
  k: string;
  i: bigint | null;
  b: bigint | null;
}

interface Agg {
  si: bigint | null;
  sb: bigint | null;
  ai: bigint | null;
  ab: bigint | null;
  ci: bigint;
}

/**
 * The reference: exact sums wrapped to the result type; AVG = the sum wrapped to the argument's
 * type (INT for AVG(INT), as Flink 2.3 computes it: the differential test measured it) / count, truncated.
 */
function reference(evs: Ev[]): Agg {
  const is = evs.flatMap((e) => (e.i === null ? [] : [e.i]));
  const bs = evs.flatMap((e) => (e.b === null ? [] : [e.b]));
  const sum = (xs: bigint[]): bigint => xs.reduce((a, x) => a + x, 0n);
  return {
    si: is.length ? I32(sum(is)) : null,
    sb: bs.length ? I64(sum(bs)) : null,
    ai: is.length ? I32(sum(is)) / BigInt(is.length) : null,
    ab: bs.length ? I64(sum(bs)) / BigInt(bs.length) : null,
    ci: BigInt(is.length),
  };
}

const toJson = (e: Ev): Record<string, unknown> => ({
  ts: e.t,
  k: e.k,
  i: e.i === null ? null : Number(e.i),
  // BIGINT beyond 2^53 is written as a string (a JSON number would lose digits).
  b: e.b === null ? null : e.b.toString(),
});

const parsed = (r: Record<string, unknown>): Agg => ({ si: big(r.si), sb: big(r.sb), ai: big(r.ai), ab: big(r.ab), ci: big(r.ci)! });

async function runAggs(evs: Ev[]): Promise<{ windows: Map<string, Agg>; groups: Map<string, Agg> }> {
  const r = await runSql(AGG_SQL, { 'ev.ndjson': evs.map(toJson) }, ['out.ndjson', 'g.ndjson']);
  const windows = new Map(r['out.ndjson']!.map((x) => [`${String(x.window_start)}|${String(x.k)}`, parsed(x)]));
  // The GROUP BY writes upserts: the last row of each key is its final value.
  const groups = new Map<string, Agg>();
  for (const x of r['g.ndjson']!) if (x.op !== '-U' && x.op !== '-D') groups.set(String(x.k), parsed(x));
  return { windows, groups };
}

function expectedOf(evs: Ev[]): { windows: Map<string, Agg>; groups: Map<string, Agg> } {
  const byWindow = new Map<string, Ev[]>();
  const byKey = new Map<string, Ev[]>();
  for (const e of evs) {
    const ws = new Date(Math.floor(e.t / 5000) * 5000).toISOString().replace('T', ' ').replace('Z', '');
    const wk = `${ws}|${e.k}`;
    byWindow.set(wk, [...(byWindow.get(wk) ?? []), e]);
    byKey.set(e.k, [...(byKey.get(e.k) ?? []), e]);
  }
  return {
    windows: new Map([...byWindow].map(([k, v]) => [k, reference(v)])),
    groups: new Map([...byKey].map(([k, v]) => [k, reference(v)])),
  };
}

const sorted = (m: Map<string, Agg>): [string, Agg][] => [...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

test('SUM(INT) near 2^31 wraps as INT and SUM(BIGINT) near 2^63 wraps as BIGINT, in TUMBLE and GROUP BY, NULLs skipped', async () => {
  const t0 = Date.UTC(2024, 0, 1);
  const evs: Ev[] = [
    // Window 1, key a: 2^31 - 100 three times (exact 6442450644) and a NULL.
    { t: t0, k: 'a', i: INT_MAX - 99n, b: BIG_MAX - 5n },
    { t: t0 + 1000, k: 'a', i: INT_MAX - 99n, b: 10n },
    { t: t0 + 2000, k: 'a', i: null, b: null },
    { t: t0 + 3000, k: 'a', i: INT_MAX - 99n, b: BIG_MAX },
    // Window 1, key b: negative overflow.
    { t: t0 + 1000, k: 'b', i: INT_MIN, b: BIG_MIN },
    { t: t0 + 1500, k: 'b', i: -1n, b: -1n },
    // Window 2, key a: only NULLs → NULL sums, COUNT 0.
    { t: t0 + 6000, k: 'a', i: null, b: null },
    // Window 2, key b: no overflow at all (the plain-number path).
    { t: t0 + 7000, k: 'b', i: 5n, b: 7n },
  ];
  const got = await runAggs(evs);
  const want = expectedOf(evs);
  assert.deepEqual(sorted(got.windows), sorted(want.windows));
  assert.deepEqual(sorted(got.groups), sorted(want.groups));
  // Spelled out for window 1 / a, what Flink's Java int and long addition give:
  const w1a = got.windows.get('2024-01-01 00:00:00.000|a')!;
  assert.equal(w1a.si, 6442450644n - 2n ** 32n); // 2147483348
  assert.equal(w1a.sb, BIG_MAX - 5n + 10n + BIG_MAX - 2n ** 64n); // wraps once
  assert.equal(got.windows.get('2024-01-01 00:00:05.000|a')!.si, null);
});


test('property: every SUM/AVG/COUNT is inside its declared type and equals the wrapped exact value (3 seeds)', async () => {
  for (const seed of [1, 2, 3]) {
    const r = rng(seed);
    const pick = (lo: bigint, hi: bigint): bigint => {
      const x = r();
      // Mostly near the ends of the range (where overflow happens), some small values, NULLs.
      if (x < 0.35) return hi - BigInt(Math.floor(r() * 1000));
      if (x < 0.7) return lo + BigInt(Math.floor(r() * 1000));
      return BigInt(Math.floor(r() * 2000) - 1000);
    };
    const t0 = Date.UTC(2024, 0, 1);
    const evs: Ev[] = Array.from({ length: 300 }, (_, n) => ({
      t: t0 + n * 97,
      k: ['a', 'b', 'c'][Math.floor(r() * 3)]!,
      i: r() < 0.1 ? null : pick(INT_MIN, INT_MAX),
      b: r() < 0.1 ? null : pick(BIG_MIN, BIG_MAX),
    }));
    const got = await runAggs(evs);
    const want = expectedOf(evs);
    for (const m of [got.windows, got.groups])
      for (const a of m.values()) {
        if (a.si !== null) assert.ok(a.si >= INT_MIN && a.si <= INT_MAX, `SUM(INT) ${a.si} outside INT`);
        if (a.ai !== null) assert.ok(a.ai >= INT_MIN && a.ai <= INT_MAX, `AVG(INT) ${a.ai} outside INT`);
        for (const v of [a.sb, a.ab]) if (v !== null) assert.ok(v >= BIG_MIN && v <= BIG_MAX, `${v} outside BIGINT`);
      }
    assert.deepEqual(sorted(got.windows), sorted(want.windows), `seed ${seed}`);
    assert.deepEqual(sorted(got.groups), sorted(want.groups), `seed ${seed}`);
  }
});

const ARITH_SQL = `
CREATE SOURCE ev (
  i INT, j INT, b BIGINT, c BIGINT, x DOUBLE, d DECIMAL(38, 2)
) WITH (connector = 'file', path = 'ev.ndjson', format = 'ndjson');

CREATE VIEW a AS
SELECT i + j AS i_add, i - j AS i_sub, i * j AS i_mul, -i AS i_neg, i / j AS i_div,
       b + c AS b_add, b - c AS b_sub, b * c AS b_mul, -b AS b_neg, b / c AS b_div,
       CAST(b AS INT) AS b_int, CAST(x AS INT) AS x_int, CAST(x AS BIGINT) AS x_big,
       CAST(d AS INT) AS d_int, CAST(d AS BIGINT) AS d_big,
       i + 1 AS i_inc, CAST(i AS BIGINT) + c AS ib_add
FROM ev;

CREATE SINK out FROM a WITH (connector = 'file', path = 'out.ndjson', format = 'ndjson');
`;

/** A scaled DECIMAL(38, 2) as exact text: '-2.99'. */
const decText = (v: bigint): string => {
  const a = v < 0n ? -v : v;
  return `${v < 0n ? '-' : ''}${a / 100n}.${String(a % 100n).padStart(2, '0')}`;
};

test('INT and BIGINT + - * / and unary minus wrap (Java), CAST narrows to the low bits, DOUBLE casts saturate', async () => {
  const rows = [
    // d is DECIMAL(38, 2) as its scaled integer (hundredths): CAST rounds toward zero, then keeps the low bits.
    { i: INT_MAX, j: 1n, b: BIG_MAX, c: 1n, x: 3e9, d: 299n },
    { i: INT_MIN, j: -1n, b: BIG_MIN, c: -1n, x: -3e20, d: -299n },
    { i: 65536n, j: 65536n, b: 2n ** 40n, c: 2n ** 40n, x: 2.9, d: (2n ** 40n) * 100n + 99n },
    { i: -7n, j: 2n, b: 2n ** 32n + 5n, c: 3n, x: -2.9, d: -(10n ** 20n) * 100n - 50n },
    { i: 123n, j: 0n, b: 5n, c: 0n, x: 1e300, d: 5n },
  ];
  const r = await runSql(ARITH_SQL, { 'ev.ndjson': rows.map((x) => ({ ...x, i: Number(x.i), j: Number(x.j), b: x.b.toString(), c: x.c.toString(), d: decText(x.d) })) }, ['out.ndjson']);
  const javaDiv = (p: bigint, q: bigint, wrap: (v: bigint) => bigint): bigint | null => (q === 0n ? null : wrap(p / q)); // BigInt / truncates toward zero
  const sat = (d: number, lo: bigint, hi: bigint): bigint => (Number.isNaN(d) ? 0n : d >= Number(hi) ? hi : d <= Number(lo) ? lo : BigInt(Math.trunc(d)));
  const want = rows.map(({ i, j, b, c, x, d }) => ({
    i_add: I32(i + j), i_sub: I32(i - j), i_mul: I32(i * j), i_neg: I32(-i), i_div: javaDiv(i, j, I32),
    b_add: I64(b + c), b_sub: I64(b - c), b_mul: I64(b * c), b_neg: I64(-b), b_div: javaDiv(b, c, I64),
    b_int: I32(b), x_int: sat(x, INT_MIN, INT_MAX), x_big: sat(x, BIG_MIN, BIG_MAX),
    d_int: I32(d / 100n), d_big: I64(d / 100n),
    i_inc: I32(i + 1n), ib_add: I64(i + c),
  }));
  const got = r['out.ndjson']!.map((o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, big(v)])));
  assert.deepEqual(got, want);
  // Spelled out: INT_MAX + 1 is INT_MIN, and 2^16 * 2^16 is 0 in 32 bits.
  assert.equal(got[0]!.i_add, INT_MIN);
  assert.equal(got[2]!.i_mul, 0n);
  assert.equal(got[1]!.i_div, INT_MIN); // MIN / -1
  assert.deepEqual([got[0]!.d_int, got[1]!.d_int], [2n, -2n]); // 2.99 → 2, -2.99 → -2 (toward zero)
});
