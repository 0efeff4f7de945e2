// ClickHouse DDL gives Flink's integer overflow and string order (issue 19.2/19.3), run in chdb:
// SUM(INT) is computed by ClickHouse in Int64 and cast back to Int32 (the low 32 bits, Java's
// wrap), SUM(BIGINT) wraps in Int64, INT arithmetic is cast back to Int32 wherever it is used
// (a WHERE too), MIN / -1 wraps; MIN/MAX over String compare bytes (= code points). Expected
// values come from exact BigInt arithmetic with an explicit wrap, as in the runtime's test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { compileFile } from '../../../src/build/compile.ts';
import { emitClickHouse } from '../../../targets/clickhouse/index.ts';
import { runChdb } from '../../support/chdb.ts';
import { insert, type Row } from './support.ts';

const I32 = (v: bigint): bigint => BigInt.asIntN(32, v);
const I64 = (v: bigint): bigint => BigInt.asIntN(64, v);
const INT_MAX = 2n ** 31n - 1n;
const INT_MIN = -(2n ** 31n);
const BIG_MAX = 2n ** 63n - 1n;
const FFFD = '\uFFFD';
const DESERET = '\u{10400}';

const SQL = `
CREATE SOURCE ev (
  ts TIMESTAMP(3), k STRING, i INT, j INT, b BIGINT, s STRING,
  WATERMARK FOR ts AS ts - INTERVAL '0' SECOND
) WITH (connector = 'kafka', topic = 'ev', format = 'json', brokers = 'broker.internal:9092', idle_timeout = '30 s');

CREATE VIEW w AS
SELECT window_start, k, SUM(i) AS si, SUM(b) AS sb, AVG(i) AS ai, AVG(b) AS ab, SUM(i * j) AS sij, MIN(s) AS lo, MAX(s) AS hi
FROM TUMBLE(ev, ts, INTERVAL '5' SECOND)
GROUP BY window_start, window_end, k
ON LATE DROP;

CREATE VIEW e AS SELECT k, i + j AS ij, -i AS ni, i / j AS q, b + b AS bb FROM ev WHERE i + j < 0 OR j = -1;
`;

const big = (v: unknown): bigint | null => (v === null || v === undefined ? null : BigInt(String(v)));

test('ClickHouse: SUM/AVG over INT and BIGINT near 2^31 / 2^63 and INT arithmetic wrap as Flink; MIN/MAX of strings by code point', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pipec-ch-ovf-'));
  writeFileSync(path.join(dir, 'p.pipe.sql'), SQL);
  const r = await compileFile('p.pipe.sql', { cwd: dir, env: { get: () => undefined } });
  assert.ok(r.plan && !r.diagnostics.hasErrors, JSON.stringify(r.diagnostics.items.filter((d) => d.severity === 'error')));
  const out = emitClickHouse(r.plan, { sourceMode: 'insertable' });
  assert.equal(out.diagnostics.hasErrors, false);

  const evs = [
    { ts: '2024-01-01 00:00:00.000', k: 'a', i: INT_MAX - 99n, j: 2n, b: BIG_MAX - 5n, s: FFFD },
    { ts: '2024-01-01 00:00:01.000', k: 'a', i: INT_MAX - 99n, j: 65536n, b: 10n, s: DESERET },
    { ts: '2024-01-01 00:00:02.000', k: 'a', i: null, j: null, b: null, s: null },
    { ts: '2024-01-01 00:00:03.000', k: 'a', i: INT_MAX - 99n, j: -1n, b: BIG_MAX, s: 'm' },
    { ts: '2024-01-01 00:00:04.000', k: 'b', i: INT_MIN, j: -1n, b: 1n, s: 'x' },
    // Closes the first window (the read view's watermark is the largest event time).
    { ts: '2024-01-01 00:01:00.000', k: 'z', i: 1n, j: 1n, b: 1n, s: 'z' },
  ];
  const cols = ['ts', 'k', 'i', 'j', 'b', 's'];
  const rows: Row[] = evs.map((e) => ({ ...e, i: e.i === null ? null : Number(e.i), j: e.j === null ? null : Number(e.j), b: e.b === null ? null : Number(e.b) <= Number.MAX_SAFE_INTEGER ? Number(e.b) : e.b.toString() }));
  const res = await runChdb(
    [out.sql, insert('`p`.`ev`', cols, rows), "SELECT * FROM `p`.`w` WHERE k != 'z' ORDER BY k;", 'SELECT * FROM `p`.`e` ORDER BY k, ij;'].join('\n'),
  );
  const [w, e] = res.filter((x) => x.statement.startsWith('SELECT')).map((x) => x.rows);

  const win = (k: string): Record<string, unknown> => {
    const xs = evs.filter((x) => x.k === k && x.ts < '2024-01-01 00:00:05');
    const is = xs.flatMap((x) => (x.i === null ? [] : [x.i]));
    const bs = xs.flatMap((x) => (x.b === null ? [] : [x.b]));
    const ijs = xs.flatMap((x) => (x.i === null || x.j === null ? [] : [I32(x.i * x.j)]));
    const sum = (v: bigint[]): bigint => v.reduce((a, x) => a + x, 0n);
    const ss = xs.flatMap((x) => (x.s === null ? [] : [x.s])).sort((p, q) => Buffer.compare(Buffer.from(p), Buffer.from(q)));
    return {
      k,
      si: I32(sum(is)),
      sb: I64(sum(bs)),
      ai: I64(sum(is)) / BigInt(is.length),
      ab: I64(sum(bs)) / BigInt(bs.length),
      sij: I32(sum(ijs)),
      lo: ss[0],
      hi: ss.at(-1),
    };
  };
  const got = w!.map((x) => ({ k: x.k, si: big(x.si), sb: big(x.sb), ai: big(x.ai), ab: big(x.ab), sij: big(x.sij), lo: x.lo, hi: x.hi }));
  assert.deepEqual(got, [win('a'), win('b')]);
  assert.equal(got[0]!.si, 3n * (INT_MAX - 99n) - 2n ** 32n); // the wrapped INT sum
  assert.equal(got[0]!.hi, DESERET); // U+10400 > U+FFFD by code point

  // WHERE i + j < 0 sees the wrapped INT sum: INT_MAX - 99 + 65536 overflows to negative (INT_MAX - 99 + 2
  // does not); MIN / -1 and -MIN are MIN, MIN + -1 is MAX.
  const want = evs
    .filter((x) => x.i !== null && x.j !== null && (I32(x.i + x.j) < 0n || x.j === -1n))
    .map((x) => ({ k: x.k, ij: I32(x.i! + x.j!), ni: I32(-x.i!), q: I32(x.i! / x.j!), bb: I64(x.b! + x.b!) }))
    .sort((p, q) => (p.k < q.k ? -1 : p.k > q.k ? 1 : p.ij < q.ij ? -1 : 1));
  assert.deepEqual(
    e!.map((x) => ({ k: x.k, ij: big(x.ij), ni: big(x.ni), q: big(x.q), bb: big(x.bb) })),
    want,
  );
  assert.deepEqual(want.map((x) => x.k), ['a', 'a', 'b']);
  assert.deepEqual([want[2]!.ij, want[2]!.ni, want[2]!.q], [INT_MAX, INT_MIN, INT_MIN]);
});
