// Window table functions: the short form and Flink's long form give the same tree (apart from
// longForm and spans); durations are in ms; SESSION's PARTITION BY is split off the time column.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSqlQuery } from '../../../src/syntax/sql/index.ts';
import type { SelectQuery, WindowTvf } from '../../../src/syntax/ast.ts';
import { makeCtx, strip } from './helpers.ts';

function windowOf(from: string): { w: WindowTvf; codes: string[] } {
  const ctx = makeCtx();
  const q = parseSqlQuery(`SELECT * FROM ${from}`, ctx) as SelectQuery | null;
  const codes = ctx.diagnostics.items.map((d) => d.code);
  assert.ok(q, `${from}: ${codes.join(', ')}`);
  assert.equal(q.from.kind, 'window', from);
  return { w: q.from as WindowTvf, codes };
}

const PAIRS: [string, string][] = [
  ["TUMBLE(orders, order_ts, INTERVAL '1' MINUTE)", "TABLE(TUMBLE(TABLE orders, DESCRIPTOR(order_ts), INTERVAL '1' MINUTE))"],
  ["TUMBLE(orders, order_ts, INTERVAL '1' HOUR, INTERVAL '15' MINUTE)", "TABLE(TUMBLE(TABLE orders, DESCRIPTOR(order_ts), INTERVAL '1' HOUR, INTERVAL '15' MINUTE))"],
  ["HOP(shop.orders, ts, INTERVAL '1' MINUTE, INTERVAL '5' MINUTE) AS w", "TABLE(HOP(TABLE shop.orders, DESCRIPTOR(ts), INTERVAL '1' MINUTE, INTERVAL '5' MINUTE)) AS w"],
  ["CUMULATE(orders, ts, INTERVAL '1' MINUTE, INTERVAL '1' HOUR)", "TABLE(CUMULATE(TABLE orders, DESCRIPTOR(ts), INTERVAL '1' MINUTE, INTERVAL '1' HOUR))"],
  ["SESSION(clicks, ts, INTERVAL '30' MINUTE)", "TABLE(SESSION(TABLE clicks, DESCRIPTOR(ts), INTERVAL '30' MINUTE))"],
  [
    "SESSION(clicks PARTITION BY user_id, page, ts, INTERVAL '30' MINUTE)",
    "TABLE(SESSION(TABLE clicks PARTITION BY user_id, page, DESCRIPTOR(ts), INTERVAL '30' MINUTE))",
  ],
  // Flink's spelling of several partition columns: a parenthesized list.
  [
    "SESSION(clicks PARTITION BY (user_id, page), ts, INTERVAL '30' MINUTE)",
    "TABLE(SESSION(TABLE clicks PARTITION BY (user_id, page), DESCRIPTOR(ts), INTERVAL '30' MINUTE))",
  ],
  ["SESSION(clicks PARTITION BY (user_id), ts, INTERVAL '30' MINUTE)", "TABLE(SESSION(TABLE clicks PARTITION BY user_id, DESCRIPTOR(ts), INTERVAL '30' MINUTE))"],
];

test("SESSION's PARTITION BY (a, b) is the same window as PARTITION BY a, b", () => {
  const bare = windowOf("TABLE(SESSION(TABLE clicks PARTITION BY user_id, page, DESCRIPTOR(ts), INTERVAL '30' MINUTE))").w;
  const listed = windowOf("TABLE(SESSION(TABLE clicks PARTITION BY (user_id, page), DESCRIPTOR(ts), INTERVAL '30' MINUTE))").w;
  assert.deepEqual(listed.partitionBy.map((p) => p.name), ['user_id', 'page']);
  assert.equal(listed.timeColumn.name, 'ts');
  assert.equal(listed.args.length, 1);
  assert.deepEqual(strip(listed, []), strip(bare, []));
  // Without DESCRIPTOR the list still ends at its parenthesis: the time column is the next argument.
  const short = windowOf("SESSION(clicks PARTITION BY (a, b, c), ts, INTERVAL '1' MINUTE)").w;
  assert.deepEqual(short.partitionBy.map((p) => p.name), ['a', 'b', 'c']);
  assert.equal(short.timeColumn.name, 'ts');
});

test('short and long window forms produce the same AST apart from longForm and spans', () => {
  for (const [short, long] of PAIRS) {
    const a = windowOf(short);
    const b = windowOf(long);
    assert.deepEqual(a.codes, []);
    assert.deepEqual(b.codes, []);
    assert.equal(a.w.longForm, false, short);
    assert.equal(b.w.longForm, true, long);
    assert.deepEqual(strip(a.w, ['longForm']), strip(b.w, ['longForm']), short);
  }
});

test('window arguments: function, relation, time column, durations in ms, partitions, alias', () => {
  const ms = (w: WindowTvf): number[] => w.args.map((a) => (a.kind === 'interval' ? a.ms : NaN));
  const t = windowOf("TUMBLE(orders, order_ts, INTERVAL '1' HOUR, INTERVAL '15' MINUTE)").w;
  assert.equal(t.fn, 'tumble');
  assert.deepEqual(ms(t), [3_600_000, 900_000]);
  const h = windowOf("HOP(shop.orders, ts, INTERVAL '1' MINUTE, INTERVAL '5' MINUTE) AS w").w;
  assert.deepEqual(h.input.name.parts.map((p) => p.name), ['shop', 'orders']);
  assert.equal(h.alias?.name, 'w');
  assert.deepEqual(ms(h), [60_000, 300_000]);
  const s = windowOf("SESSION(clicks PARTITION BY user_id, page, ts, INTERVAL '30' MINUTE)").w;
  assert.equal(s.fn, 'session');
  assert.deepEqual(s.partitionBy.map((p) => p.name), ['user_id', 'page']);
  assert.equal(s.timeColumn.name, 'ts');
  assert.deepEqual(ms(s), [1_800_000]);
  const c = windowOf("CUMULATE(orders, ts, INTERVAL '5 seconds', INTERVAL '1 min')").w;
  assert.deepEqual(ms(c), [5_000, 60_000]);
});

test('wrong window arguments are reported, once per window', () => {
  const cases: [string, string][] = [
    ["HOP(orders, ts, INTERVAL '1' MINUTE)", 'HOP: takes a slide and a size'],
    ["SESSION(orders, ts)", 'SESSION: takes a gap'],
    ["TUMBLE(orders, ts, INTERVAL '1' MINUTE, INTERVAL '1' MINUTE, INTERVAL '1' MINUTE)", 'TUMBLE: takes a size and an optional offset'],
    ["TUMBLE(orders PARTITION BY k, ts, INTERVAL '1' MINUTE)", 'TUMBLE: only SESSION takes PARTITION BY'],
    ["TUMBLE(orders PARTITION BY (k, j), ts, INTERVAL '1' MINUTE)", 'TUMBLE: only SESSION takes PARTITION BY'],
    ["SESSION(orders PARTITION BY (k, j + 1), ts, INTERVAL '1' MINUTE)", 'SESSION: PARTITION BY takes column names'],
    // The list is closed: `ts, ts, gap` after it is not read as a partition column + time + gap.
    ["SESSION(orders PARTITION BY (k), ts, ts, INTERVAL '1' MINUTE)", 'SESSION: takes a gap'],
    ["TUMBLE(orders, ts + 1, INTERVAL '1' MINUTE)", 'TUMBLE: the argument after the relation must be its time column'],
  ];
  for (const [from, message] of cases) {
    const ctx = makeCtx();
    parseSqlQuery(`SELECT * FROM ${from}`, ctx);
    assert.deepEqual(ctx.diagnostics.items.map((d) => `${d.code}: ${d.message}`), [`syntax-bad-window-args: ${message}`], from);
  }
});

test('a table named like a window function is still a table', () => {
  const ctx = makeCtx();
  const q = parseSqlQuery('SELECT * FROM session AS s JOIN hop ON s.id = hop.id', ctx) as SelectQuery;
  assert.deepEqual(ctx.diagnostics.items, []);
  assert.equal(q.from.kind, 'join');
  if (q.from.kind === 'join') {
    assert.equal(q.from.left.kind, 'table');
    assert.equal(q.from.right.kind, 'table');
  }
});
