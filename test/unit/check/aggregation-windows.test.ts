// Grouping and windows: GROUP BY coverage, window columns, windowed GROUP BY, aggregate types,
// window argument rules, event-time checks, EMIT modes and their changelogs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { T } from '../../../src/types/sql-type.ts';
import { at, check, diag, kafkaSource, op } from './helpers.ts';

const SRC = kafkaSource('t', 'k STRING NOT NULL, region STRING, amount DECIMAL(12, 2), n INT, other_ts TIMESTAMP(3), ts TIMESTAMP(3) NOT NULL');
const view = (body: string): string => `${SRC}CREATE VIEW v AS ${body};`;
const tumble = "TUMBLE(t, ts, INTERVAL '1' MINUTE)";

test('a selected column must be grouped or aggregated', async () => {
  const c = await check(view(`SELECT k, region, COUNT(*) AS c FROM ${tumble} GROUP BY k, window_start, window_end`));
  assert.deepEqual(at(c, 'column-not-grouped'), ['5:28']);
  assert.equal(diag(c, 'column-not-grouped').help, 'add region to GROUP BY or wrap it in an aggregate such as MAX(region)');
});

test('window columns exist only with a window function, and not in WHERE', async () => {
  const c = await check(view("SELECT k, window_start FROM t"));
  assert.deepEqual(at(c, 'window-column-unavailable'), ['5:28']);
  const w = await check(view(`SELECT k, COUNT(*) AS c FROM ${tumble} WHERE window_start > TIMESTAMP '2024-01-01 00:00:00' GROUP BY k, window_start, window_end`));
  assert.deepEqual(w.errors, ['window-column-unavailable']);
});

test('a windowed GROUP BY must include window_start and window_end', async () => {
  const c = await check(view(`SELECT k, COUNT(*) AS c FROM ${tumble} GROUP BY k, window_start`));
  assert.deepEqual(c.errors, ['window-group-missing']);
  assert.match(diag(c, 'window-group-missing').message, /missing: window_end/);
});

test('a window function must be aggregated', async () => {
  const c = await check(view(`SELECT k FROM ${tumble}`));
  assert.deepEqual(c.errors, ['window-without-aggregate']);
});

test('aggregate result types: SUM/AVG of DECIMAL, COUNT, MIN/MAX, APPROX_COUNT_DISTINCT, FIRST_VALUE', async () => {
  const c = await check(
    view(`SELECT k, window_start, window_end, window_time, SUM(amount) AS s, AVG(amount) AS a, COUNT(DISTINCT region) AS dr,
      MIN(n) AS mn, MAX(ts) AS mx, APPROX_COUNT_DISTINCT(region) AS ad, FIRST_VALUE(region) AS fv, COUNT(n) AS cn
      FROM ${tumble} GROUP BY k, window_start, window_end`),
  );
  assert.deepEqual(c.codes, []);
  const w = op(c.plan, 'v/window');
  assert.ok(w.op === 'window_agg');
  assert.deepEqual(
    w.aggregates.map((a) => [a.name, a.fn, a.type]),
    [
      ['s', 'sum', T.decimal(38, 2)],
      ['a', 'avg', T.decimal(38, 6)],
      ['dr', 'count_distinct', T.bigint(false)],
      ['mn', 'min', T.int()],
      ['mx', 'max', T.timestamp(3, false)],
      ['ad', 'approx_count_distinct', T.bigint(false)],
      ['fv', 'first_value', T.string()],
      ['cn', 'count', T.bigint(false)],
    ],
  );
  // window_time is selected, so it is an output column and the event-time column downstream.
  assert.deepEqual(w.windowColumns, ['window_start', 'window_end', 'window_time']);
  assert.equal(w.timeColumn, 'window_time');
  assert.equal(op(c.plan, 'v/project').timeColumn, 'window_time');
});

test('SUM of a string and DISTINCT outside COUNT are rejected', async () => {
  const c = await check(view(`SELECT SUM(k) AS s, MAX(DISTINCT n) AS m FROM ${tumble} GROUP BY window_start, window_end`));
  assert.deepEqual(c.errors, ['invalid-aggregate-call', 'invalid-aggregate-call']);
});

test('HOP size must be a multiple of the slide; CUMULATE of the step; TUMBLE offset below size', async () => {
  const hop = await check(view(`SELECT COUNT(*) AS c FROM HOP(t, ts, INTERVAL '7' MINUTE, INTERVAL '10' MINUTE) GROUP BY window_start, window_end`));
  assert.deepEqual(hop.errors, ['window-arg-invalid']);
  assert.match(diag(hop, 'window-arg-invalid').message, /size 10 min must be a multiple of the slide \(7 min\)/);
  const cum = await check(view(`SELECT COUNT(*) AS c FROM CUMULATE(t, ts, INTERVAL '7' MINUTE, INTERVAL '1' HOUR) GROUP BY window_start, window_end`));
  assert.deepEqual(cum.errors, ['window-arg-invalid']);
  const off = await check(view(`SELECT COUNT(*) AS c FROM TUMBLE(t, ts, INTERVAL '1' MINUTE, INTERVAL '1' MINUTE) GROUP BY window_start, window_end`));
  assert.deepEqual(off.errors, ['window-arg-invalid']);
  const ok = await check(view(`SELECT COUNT(*) AS c FROM HOP(t, ts, INTERVAL '1' MINUTE, INTERVAL '10' MINUTE) GROUP BY window_start, window_end`));
  const w = op(ok.plan, 'v/window');
  assert.ok(w.op === 'window_agg');
  assert.deepEqual(w.window, { kind: 'hop', slideMs: 60_000, sizeMs: 600_000 });
  assert.deepEqual(w.stateBound, { kind: 'window', retainMs: 600_000 });
});

test('month and year intervals are rejected in windows', async () => {
  const c = await check(view(`SELECT COUNT(*) AS c FROM TUMBLE(t, ts, INTERVAL '1' MONTH) GROUP BY window_start, window_end`));
  assert.deepEqual(c.errors, ['calendar-interval']);
});

test('a window on a column without the watermark is an error', async () => {
  const c = await check(view(`SELECT COUNT(*) AS c FROM TUMBLE(t, other_ts, INTERVAL '1' MINUTE) GROUP BY window_start, window_end`));
  assert.deepEqual(at(c, 'window-time-not-rowtime'), ['5:54']);
  assert.equal(diag(c, 'window-time-not-rowtime').help, 'window on ts');
});

test('EMIT CHANGES on a window aggregate is an upsert keyed by the group keys and window_start', async () => {
  const c = await check(view(`SELECT k, window_start, window_end, COUNT(*) AS c FROM ${tumble} GROUP BY k, window_start, window_end EMIT CHANGES`));
  assert.deepEqual(c.codes, []);
  const w = op(c.plan, 'v/window');
  assert.equal(w.changelog, 'upsert');
  assert.deepEqual(w.upsertKey, ['k', 'window_start']);
  assert.deepEqual(op(c.plan, 'v/project').upsertKey, ['k', 'window_start']);
});

test('EMIT CHANGES on a SESSION aggregate is keyed by window_end too: a later session can share a closed one\'s start', async () => {
  const c = await check(view(`SELECT k, window_start, window_end, COUNT(*) AS c FROM SESSION(t PARTITION BY (k), ts, INTERVAL '5' MINUTE) GROUP BY k, window_start, window_end EMIT CHANGES`));
  assert.deepEqual(c.codes, []);
  assert.deepEqual(op(c.plan, 'v/window').upsertKey, ['k', 'window_start', 'window_end']);
  assert.deepEqual(op(c.plan, 'v/project').upsertKey, ['k', 'window_start', 'window_end']);
});

test('a non-windowed GROUP BY over a stream needs EMIT CHANGES and state_ttl', async () => {
  const bad = await check(view('SELECT region, COUNT(*) AS c FROM t GROUP BY region'));
  assert.deepEqual(bad.errors, ['unbounded-aggregation']);
  assert.match(diag(bad, 'unbounded-aggregation').message, /EMIT CHANGES and a state_ttl/);
  const noTtl = await check(view('SELECT region, COUNT(*) AS c FROM t GROUP BY region EMIT CHANGES'));
  assert.deepEqual(noTtl.errors, ['unbounded-aggregation']);
  const ok = await check(`${SRC}CREATE VIEW v WITH (state_ttl = '1 d') AS SELECT region, COUNT(*) AS c FROM t GROUP BY region EMIT CHANGES;`);
  assert.deepEqual(ok.codes, []);
  const g = op(ok.plan, 'v/aggregate');
  assert.ok(g.op === 'group_agg');
  assert.equal(g.stateTtlMs, 86_400_000);
  assert.deepEqual(g.stateBound, { kind: 'ttl', ttlMs: 86_400_000 });
  assert.equal(g.changelog, 'upsert');
  assert.deepEqual(g.upsertKey, ['region']);
});

test('a bounded source needs no state_ttl for a GROUP BY', async () => {
  const c = await check(`CREATE SOURCE f (region STRING, n INT) WITH (connector = 'file', path = 'data/x.ndjson');
CREATE VIEW v AS SELECT region, SUM(n) AS s FROM f GROUP BY region;`);
  assert.deepEqual(c.codes, []);
});

test('EMIT ON WINDOW CLOSE, ALLOWED LATENESS and ON LATE apply only to window aggregates', async () => {
  const c = await check(`${SRC}CREATE VIEW v AS SELECT k FROM t EMIT ON WINDOW CLOSE ALLOWED LATENESS INTERVAL '1' MINUTE ON LATE DROP;`);
  assert.deepEqual(c.errors, ['emit-not-applicable', 'lateness-not-applicable', 'lateness-not-applicable']);
});

test('HAVING filters the aggregate output; grouped expressions may be reused in SELECT', async () => {
  const c = await check(view(`SELECT UPPER(k) AS uk, window_end, COUNT(*) AS c FROM ${tumble}
    GROUP BY UPPER(k), window_start, window_end HAVING COUNT(*) > 10`));
  assert.deepEqual(c.codes, []);
  assert.deepEqual(c.plan!.operators.map((o) => o.id), ['v/scan', 'v/window', 'v/having', 'v/project']);
  const w = op(c.plan, 'v/window');
  assert.ok(w.op === 'window_agg');
  assert.deepEqual(w.groupKeys.map((g) => g.name), ['uk']);
  assert.deepEqual(w.aggregates.map((a) => a.name), ['c']);
});

test('GROUP BY cannot name a SELECT alias; the error says so', async () => {
  const c = await check(`${SRC}CREATE VIEW v WITH (state_ttl = '1 h') AS SELECT UPPER(k) AS uk, COUNT(*) AS c FROM t GROUP BY uk EMIT CHANGES;`);
  assert.deepEqual(c.errors, ['unknown-column']);
  assert.match(diag(c, 'unknown-column').notes[0]!, /alias of the SELECT list/);
});

test('SESSION partition columns must be grouped', async () => {
  const c = await check(view(`SELECT COUNT(*) AS c FROM SESSION(t PARTITION BY k, ts, INTERVAL '5' MINUTE) GROUP BY region, window_start, window_end`));
  assert.deepEqual(c.errors, ['session-partition-not-grouped']);
  const ok = await check(view(`SELECT k, COUNT(*) AS c FROM SESSION(t PARTITION BY k, ts, INTERVAL '5' MINUTE) GROUP BY k, window_start, window_end`));
  assert.deepEqual(ok.codes, []);
  const w = op(ok.plan, 'v/window');
  assert.ok(w.op === 'window_agg');
  assert.deepEqual(w.window, { kind: 'session', gapMs: 300_000, partitionBy: ['k'] });
  assert.deepEqual(w.stateBound, { kind: 'window', retainMs: 300_000 });
});

test('group key names stay unique when an alias repeats a column name', async () => {
  const c = await check(`${SRC}CREATE VIEW v WITH (state_ttl = '1 h') AS SELECT UPPER(k) AS region, region AS r2, COUNT(*) AS c FROM t GROUP BY UPPER(k), region EMIT CHANGES;`);
  assert.deepEqual(c.codes, []);
  const g = op(c.plan, 'v/aggregate');
  assert.ok(g.op === 'group_agg');
  assert.deepEqual(g.groupKeys.map((k) => k.name), ['region', 'region0']);
  assert.deepEqual(op(c.plan, 'v/project').schema.map((x) => x.name), ['region', 'r2', 'c']);
});
