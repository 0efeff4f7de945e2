// SQL scalar functions of generated expressions: three-valued logic, LIKE, strings, time units,
// JSON_VALUE; and the status line of a TTY run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as sql from '../../../targets/runtime/lib/sql-fns.ts';
import { prometheusText, statusLine, type Metrics } from '../../../targets/runtime/lib/metrics.ts';

test('AND/OR/NOT/IN follow SQL three-valued logic', () => {
  assert.equal(sql.and(false, null), false);
  assert.equal(sql.and(true, null), null);
  assert.equal(sql.or(true, null), true);
  assert.equal(sql.or(false, null), null);
  assert.equal(sql.not(null), null);
  assert.equal(sql.inList(2, [1, 2]), true);
  assert.equal(sql.inList(3, [1, null]), null);
  assert.equal(sql.inList(null, [1]), null);
  assert.equal(sql.eq(1n, 1), true);
});

test('LIKE, SUBSTRING, CHAR_LENGTH, CONCAT, COALESCE, NULLIF', () => {
  assert.equal(sql.like('order-17', 'order-__'), true);
  assert.equal(sql.like('order-17', 'order%'), true);
  assert.equal(sql.like('a.c', 'a_c'), true);
  assert.equal(sql.like('abc', 'a.c'), false);
  assert.equal(sql.substring('héllo', 2, 3), 'éll');
  assert.equal(sql.substring('hello', 3), 'llo');
  assert.equal(sql.charLength('😀a'), 2);
  assert.equal(sql.concat('a', null), null);
  assert.equal(sql.coalesce(null, 2, 3), 2);
  assert.equal(sql.nullif(1, 1), null);
});

test('FLOOR/CEIL TO, EXTRACT and TIMESTAMPADD in UTC', () => {
  const t = Date.UTC(2024, 0, 31, 13, 45, 30, 250);
  assert.equal(sql.floorTo(t, 'hour'), Date.UTC(2024, 0, 31, 13));
  assert.equal(sql.floorTo(t, 'month'), Date.UTC(2024, 0, 1));
  assert.equal(sql.floorTo(t, 'week'), Date.UTC(2024, 0, 29)); // a Monday
  assert.equal(sql.ceilTo(t, 'day'), Date.UTC(2024, 1, 1));
  assert.equal(sql.extract('minute', t), 45);
  assert.equal(sql.extract('quarter', t), 1);
  assert.equal(sql.timestampAdd('month', 1, t), Date.UTC(2024, 1, 29, 13, 45, 30, 250));
  assert.equal(sql.timestampAdd('minute', 15, t), t + 15 * 60000);
});

test('JSON_VALUE returns scalars as text and NULL otherwise', () => {
  const doc = '{"a":{"b":[10,{"c":"x"}]},"n":null}';
  assert.equal(sql.jsonValue(doc, '$.a.b[0]'), '10');
  assert.equal(sql.jsonValue(doc, '$.a.b[1].c'), 'x');
  assert.equal(sql.jsonValue(doc, '$.a'), null);
  assert.equal(sql.jsonValue(doc, '$.missing'), null);
  assert.equal(sql.jsonValue('not json', '$.a'), null);
});

test('the status line shows rates, watermarks, open state, late/dead counts and the last checkpoint', () => {
  const m: Metrics = {
    pipeline: 'p',
    startedAt: 0,
    recordsIn: () => new Map([['orders', 3000]]),
    deadLetters: () => new Map([['orders', 2]]),
    watermarks: new Map([['orders', Date.UTC(2024, 0, 1, 12, 0, 0)]]),
    late: new Map([['w', 5]]),
    recordsOut: () => new Map([['out', 40]]),
    stateSize: () => new Map([['w', 12]]),
    ignoredRetractions: () => new Map([['g', 7]]),
    lag: () => new Map(),
    gauges: () => new Map([['customers', { pipec_replication_slot_lag_bytes: { help: 'Slot lag.', value: 4096 } }]]),
    checkpoints: 1,
    lastCheckpointAt: 10_000,
    lastCheckpointMs: 3,
    lastCheckpointBytes: 100,
  };
  const s = statusLine(m, 1000, 20, 1000, 13_000);
  assert.equal(s.text, 'in 2.0k/s  out 20/s  wm [orders 2024-01-01 12:00:00]  open 12  late 5  dead 2  ckpt 3s ago');
  // Connector gauges (the CDC source's slot lag) appear as their own family, labelled by source.
  const text = prometheusText(m, 13_000);
  assert.match(text, /# TYPE pipec_replication_slot_lag_bytes gauge\npipec_replication_slot_lag_bytes\{pipeline="p",source="customers"\} 4096\n/);
  assert.match(text, /\npipec_ignored_retractions_total\{pipeline="p",operator="g"\} 7\n/);
});
