// String order is Unicode code-point order (= UTF-8 byte order, Flink's and ClickHouse's),
// not JavaScript's UTF-16 code-unit order (issue 19.3): U+FFFD sorts before U+10400. The
// comparator is checked against Buffer.compare of the UTF-8 encodings; the pipeline tests
// check MIN/MAX (windowed, grouped, retracted) and < / > / BETWEEN in SQL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareStrings } from '../../../targets/runtime/lib/compare-strings.ts';
import { msAdd, msExtreme } from '../../../targets/runtime/lib/ops/retractable.ts';
import { runSql } from './sql-run.ts';

const FFFD = '\uFFFD';
const DESERET = '\u{10400}'; // '\uD801\uDC00' in UTF-16
const utf8Order = (a: string, b: string): number => Math.sign(Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')));

test("U+FFFD sorts before U+10400 (the issue's example), where JavaScript's < says the opposite", () => {
  assert.ok(DESERET < FFFD, 'JS compares UTF-16 units: the premise of the fix');
  assert.ok(compareStrings(FFFD, DESERET) < 0);
  assert.ok(compareStrings(DESERET, FFFD) > 0);
  assert.equal(compareStrings(DESERET, '\uD801\uDC00'), 0);
});

test('mixed cases: surrogate pairs against BMP characters above and below U+D800, prefixes, equal high halves', () => {
  const cases: [string, string][] = [
    ['a' + FFFD, 'a' + DESERET],
    ['\uE000', '\u{1F600}'],
    ['\uD7FF', '\u{10000}'],
    ['\u{10000}', '\u{10FFFF}'],
    ['\u{1F600}', '\u{1F601}'], // same high surrogate, low surrogates differ
    ['x\u{1F600}', 'x\u{1F600}y'],
    ['', FFFD],
    ['abc', 'abd'],
    ['\uFFFF', '\u{10000}'],
  ];
  for (const [a, b] of cases) {
    assert.equal(Math.sign(compareStrings(a, b)), utf8Order(a, b), JSON.stringify([a, b]));
    assert.equal(Math.sign(compareStrings(b, a)), utf8Order(b, a), JSON.stringify([b, a]));
  }
});

test('property: compareStrings agrees with Buffer.compare of UTF-8 bytes on 20,000 random pairs', () => {
  // Characters from the ranges where the two orders differ, plus ASCII; seeded LCG.
  let s = 12345;
  const next = (): number => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 4294967296;
  const pools = [
    [0x20, 0x7e],
    [0xd000, 0xd7ff],
    [0xe000, 0xffff],
    [0x10000, 0x10ffff],
  ] as const;
  const char = (): string => {
    const [lo, hi] = pools[Math.floor(next() * pools.length)]!;
    return String.fromCodePoint(lo + Math.floor(next() * (hi - lo + 1)));
  };
  const str = (): string => Array.from({ length: Math.floor(next() * 4) }, char).join('');
  for (let n = 0; n < 20000; n++) {
    const a = str();
    // Half the pairs share a prefix so the first difference is deeper in the strings.
    const b = next() < 0.5 ? a.slice(0, Math.floor(next() * (a.length + 1))) + str() : str();
    assert.equal(Math.sign(compareStrings(a, b)), utf8Order(a, b), JSON.stringify([a, b]));
  }
});

test('the retractable MIN/MAX multiset finds its extreme in code-point order', () => {
  const m = new Map<unknown, number>();
  for (const v of [DESERET, FFFD, 'z']) msAdd(m, v);
  assert.equal(msExtreme(m, -1), 'z');
  assert.equal(msExtreme(m, 1), DESERET);
});

const SQL = `
CREATE SOURCE ev (
  ts TIMESTAMP(3),
  k STRING,
  s STRING,
  WATERMARK FOR ts AS ts - INTERVAL '0' SECOND
) WITH (connector = 'file', path = 'ev.ndjson', format = 'ndjson');

CREATE VIEW w AS
SELECT window_start, k, MIN(s) AS lo, MAX(s) AS hi
FROM TUMBLE(ev, ts, INTERVAL '5' SECOND)
GROUP BY window_start, window_end, k;

CREATE VIEW g AS SELECT k, MIN(s) AS lo, MAX(s) AS hi FROM ev GROUP BY k;

CREATE VIEW f AS
SELECT s, s > '${FFFD}' AS gt_fffd, s < '${FFFD}' AS lt_fffd, s BETWEEN 'a' AND '${FFFD}' AS in_a_fffd, s >= '${DESERET}' AS ge_deseret
FROM ev;

CREATE SINK out FROM w WITH (connector = 'file', path = 'out.ndjson', format = 'ndjson');
CREATE SINK gout FROM g WITH (connector = 'file', path = 'g.ndjson', format = 'ndjson');
CREATE SINK fout FROM f WITH (connector = 'file', path = 'f.ndjson', format = 'ndjson');
`;

test('MIN/MAX over STRING in TUMBLE and GROUP BY, and < > BETWEEN, use code-point order', async () => {
  const t0 = Date.UTC(2024, 0, 1);
  const evs = [
    { ts: t0, k: 'a', s: FFFD },
    { ts: t0 + 1000, k: 'a', s: DESERET },
    { ts: t0 + 2000, k: 'a', s: null },
    { ts: t0 + 3000, k: 'a', s: 'm' },
    { ts: t0 + 6000, k: 'a', s: '\u{1F600}' },
    { ts: t0 + 7000, k: 'a', s: '\uE000' },
  ];
  const r = await runSql(SQL, { 'ev.ndjson': evs }, ['out.ndjson', 'g.ndjson', 'f.ndjson']);
  assert.deepEqual(
    r['out.ndjson']!.map((x) => [x.window_start, x.lo, x.hi]),
    [
      ['2024-01-01 00:00:00.000', 'm', DESERET],
      ['2024-01-01 00:00:05.000', '\uE000', '\u{1F600}'],
    ],
  );
  const last = r['g.ndjson']!.at(-1)!;
  assert.deepEqual([last.lo, last.hi], ['m', '\u{1F600}']);
  // By hand in code points: U+10400 > U+FFFD > 'm' > 'a'; U+E000 < U+FFFD; U+1F600 > U+10400.
  assert.deepEqual(
    r['f.ndjson']!.map((x) => [x.s, x.gt_fffd, x.lt_fffd, x.in_a_fffd, x.ge_deseret]),
    [
      [FFFD, false, false, true, false],
      [DESERET, true, false, false, true],
      [null, null, null, null, null],
      ['m', false, true, true, false],
      ['\u{1F600}', true, false, false, true],
      ['\uE000', false, true, true, false],
    ],
  );
});
