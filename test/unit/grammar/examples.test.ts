// The LANGUAGE.md examples (copied into fixtures/) parse into the AST a checker relies on:
// names, types, window sizes in ms, emit/lateness, options with ${VAR}, and exact spans.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePipeSql } from '../../../src/syntax/sql/index.ts';
import { PipeSqlParser } from '../../../grammar/parser.ts';
import type { CreateSourceStmt, CreateViewStmt, CreateSinkStmt, CreateCompactionStmt, Statement, WindowTvf, SelectQuery } from '../../../src/syntax/ast.ts';
import { at, fixture, makeCtx, strip, FIXTURE_NAMES } from './helpers.ts';

function parseFixture(name: string, env: Record<string, string> = {}) {
  const ctx = makeCtx(env, name);
  const file = parsePipeSql(fixture(name), ctx);
  return { file, ctx };
}

function only<K extends Statement['kind']>(stmts: Statement[], kind: K, name: string): Extract<Statement, { kind: K }> {
  const s = stmts.find((x) => x.kind === kind && x.name.name === name);
  assert.ok(s, `${kind} ${name} not found`);
  return s as Extract<Statement, { kind: K }>;
}

test('the grammar passes Chevrotain validations (no ambiguity, no left recursion)', () => {
  assert.doesNotThrow(() => new PipeSqlParser({ validate: true }));
});

test('every fixture parses without diagnostics', () => {
  for (const name of FIXTURE_NAMES) {
    const { ctx } = parseFixture(name, { PIPEC_CATALOG_URI: 'sqlite:///c.db', PIPEC_WAREHOUSE: '/w', PIPEC_CLICKHOUSE_URL: 'http://ch', PG_DSN: 'postgres://x' });
    assert.deepEqual(ctx.diagnostics.items.map((d) => d.message), [], name);
  }
});

test('PIPELINE and CREATE SOURCE: columns, types, metadata, watermark, options, spans', () => {
  const { file } = parseFixture('statements-source.pipe.sql');
  assert.equal(file.source, 'sql');
  assert.deepEqual(file.statements.map((s) => `${s.kind} ${s.name.name}`), ['pipeline orders_revenue', 'source orders']);
  const p = file.statements[0]!;
  assert.equal(p.kind, 'pipeline');
  if (p.kind !== 'pipeline') return;
  assert.deepEqual(strip(p.options), [{ key: 'checkpoint_interval', value: { kind: 'string', text: '30 s', raw: '30 s', envVars: [] } }]);
  assert.equal(at(p.options[0]!.keySpan), '1:31-1:50');
  assert.equal(at(p.options[0]!.value.span), '1:53-1:59');

  const s = only(file.statements, 'source', 'orders') as CreateSourceStmt;
  assert.equal(at(s.span).split('-')[0], '3:1');
  assert.equal(at(s.name.span), '3:15-3:21');
  assert.deepEqual(
    s.columns!.map((c) => [c.name.name, c.type]),
    [
      ['order_id', { kind: 'string', nullable: false }],
      ['customer_id', { kind: 'bigint', nullable: true }],
      ['amount', { kind: 'decimal', precision: 12, scale: 2, nullable: true }],
      ['order_ts', { kind: 'timestamp', precision: 3, ltz: false, nullable: true }],
      ['kafka_offset', { kind: 'bigint', nullable: true }],
    ],
  );
  assert.equal(at(s.columns![2]!.typeSpan), '6:16-6:30');
  assert.equal(s.columns![4]!.metadataFrom?.key, 'offset');
  assert.equal(s.columns![0]!.metadataFrom, null);
  assert.equal(s.watermark?.column.name, 'order_ts');
  assert.equal(at(s.watermark!.span).split('-')[0], '9:3');
  const wm = s.watermark!.expr;
  assert.equal(wm.kind, 'binary');
  if (wm.kind !== 'binary') return;
  assert.equal(wm.op, '-');
  assert.deepEqual(strip(wm.right), { kind: 'interval', ms: 5000, text: '5', unit: 'second' });
  assert.equal(at(wm.right.span), '9:40-9:59');
  assert.equal(s.primaryKey, null);
  assert.deepEqual(
    s.options.map((o) => `${o.key}=${o.value.text}`),
    ['connector=kafka', 'topic=orders', 'format=avro', 'schema=registry:orders-value', 'key=customer_id', 'startup=earliest', 'idle_timeout=30 s'],
  );
});

test('CREATE VIEW with a TUMBLE window, EMIT ON WINDOW CLOSE, lateness and ON LATE TO', () => {
  const { file } = parseFixture('view-window.pipe.sql');
  const v = only(file.statements, 'view', 'revenue_1m') as CreateViewStmt;
  const q = v.query as SelectQuery;
  assert.equal(q.kind, 'select');
  assert.deepEqual(
    q.items.map((i) => (i.kind === 'expr' ? (i.alias?.name ?? (i.expr.kind === 'column' ? i.expr.name.name : i.expr.kind)) : '*')),
    ['customer_id', 'window_start', 'window_end', 'revenue', 'orders'],
  );
  const count = q.items[4]!;
  assert.ok(count.kind === 'expr' && count.expr.kind === 'call');
  if (count.kind === 'expr' && count.expr.kind === 'call') {
    assert.equal(count.expr.name.name, 'count');
    assert.equal(count.expr.star, true);
    assert.deepEqual(count.expr.args, []);
    assert.equal(at(count.expr.span), '3:32-3:40');
  }
  const w = q.from as WindowTvf;
  assert.equal(w.kind, 'window');
  assert.equal(w.fn, 'tumble');
  assert.equal(w.input.name.parts[0]!.name, 'orders');
  assert.equal(w.timeColumn.name, 'order_ts');
  assert.deepEqual(w.args.map((a) => (a.kind === 'interval' ? a.ms : NaN)), [60_000]);
  assert.equal(w.longForm, false);
  assert.equal(at(w.span), '4:6-4:51');
  assert.equal(q.where?.kind, 'binary');
  assert.deepEqual(q.groupBy.map((g) => (g.kind === 'column' ? g.name.name : '?')), ['customer_id', 'window_start', 'window_end']);
  assert.equal(v.emit?.mode, 'on_window_close');
  assert.equal(at(v.emit!.span), '7:1-7:21');
  assert.equal(v.allowedLateness?.ms, 30_000);
  assert.equal(v.onLate?.kind, 'to');
  if (v.onLate?.kind === 'to') assert.equal(at(v.onLate.target.span), '9:12-9:23');
  assert.deepEqual(v.options, []);
});

test('CATALOG and SINK options keep ${VAR} raw text, the substituted text and the variable names', () => {
  const env = { PIPEC_CATALOG_URI: 'sqlite:///cat.db', PIPEC_WAREHOUSE: '/tmp/wh', PIPEC_CLICKHOUSE_URL: 'http://ch:8123' };
  const { file } = parseFixture('sinks-compaction.pipe.sql', env);
  assert.deepEqual(file.statements.map((s) => `${s.kind} ${s.name.name}`), [
    'catalog lake',
    'sink revenue_ch',
    'sink revenue_lake',
    'sink alerts',
    'compaction revenue_maintenance',
  ]);
  const cat = file.statements[0]!;
  assert.ok(cat.kind === 'catalog');
  if (cat.kind === 'catalog') {
    const uri = cat.options.find((o) => o.key === 'uri')!;
    assert.deepEqual(strip(uri.value), { kind: 'string', text: 'sqlite:///cat.db', raw: '${PIPEC_CATALOG_URI}', envVars: ['PIPEC_CATALOG_URI'] });
  }
  const ch = only(file.statements, 'sink', 'revenue_ch') as CreateSinkStmt;
  assert.deepEqual(ch.from?.parts.map((p) => p.name), ['revenue_1m']);
  assert.equal(ch.query, null);
  assert.equal(ch.options.find((o) => o.key === 'table')?.value.text, 'analytics.revenue_1m');
  const alerts = only(file.statements, 'sink', 'alerts') as CreateSinkStmt;
  assert.equal(alerts.from, null);
  assert.equal(alerts.query?.kind, 'select');
  assert.deepEqual(alerts.options.map((o) => o.key), ['connector', 'topic', 'format', 'key']);
});

test('a missing ${VAR} is reported at the string that uses it', () => {
  const { ctx } = parseFixture('sinks-compaction.pipe.sql', { PIPEC_CATALOG_URI: 'x', PIPEC_WAREHOUSE: 'y' });
  assert.deepEqual(ctx.diagnostics.items.map((d) => `${d.code} ${d.params['name']} ${d.span.start.line}:${d.span.start.column}`), ['missing-env-var PIPEC_CLICKHOUSE_URL 5:15']);
});

test('CREATE COMPACTION POLICY: the four actions and the schedule', () => {
  const { file } = parseFixture('sinks-compaction.pipe.sql', { PIPEC_CATALOG_URI: 'x', PIPEC_WAREHOUSE: 'y', PIPEC_CLICKHOUSE_URL: 'z' });
  const c = only(file.statements, 'compaction', 'revenue_maintenance') as CreateCompactionStmt;
  assert.equal(c.target.name, 'revenue_lake');
  assert.deepEqual(strip(c.actions), [
    { kind: 'rewrite_data_files', fileSizeBelow: { text: '32 MB' }, target: { text: '128 MB' }, minInputFiles: 5 },
    // `0.5 PERCENT` is half of one percent.
    { kind: 'rewrite_delete_files', deleteRatioAbove: 0.005, percentText: '0.5' },
    { kind: 'expire_snapshots', olderThan: { kind: 'interval', ms: 7 * 86_400_000, text: '7', unit: 'day' }, retainLast: 5 },
    { kind: 'remove_orphan_files', olderThan: { kind: 'interval', ms: 3 * 86_400_000, text: '3', unit: 'day' } },
  ]);
  assert.equal(at(c.actions[1]!.span).split('-')[0], '27:3');
  assert.equal(c.schedule?.ms, 3_600_000);
});

test('queries fixture: types, temporal join, session partitions, long-form HOP, subquery, keyword-named columns', () => {
  const { file, ctx } = parseFixture('queries.pipe.sql', { PG_DSN: 'postgres://u@h/db' });
  assert.deepEqual(ctx.diagnostics.items, []);
  const cust = only(file.statements, 'source', 'customers') as CreateSourceStmt;
  assert.deepEqual(cust.columns!.find((c) => c.name.name === 'attrs')!.type, {
    kind: 'map',
    key: { kind: 'string', nullable: true },
    value: { kind: 'array', element: { kind: 'int', nullable: false }, nullable: true },
    nullable: true,
  });
  assert.deepEqual(cust.columns!.find((c) => c.name.name === 'addr')!.type, {
    kind: 'row',
    fields: [
      { name: 'street', type: { kind: 'string', nullable: true } },
      { name: 'Zip', type: { kind: 'string', nullable: false } },
    ],
    nullable: true,
  });
  assert.deepEqual(cust.columns!.find((c) => c.name.name === 'seen')!.type, { kind: 'timestamp', precision: 6, ltz: true, nullable: true });
  assert.deepEqual(cust.primaryKey?.columns.map((c) => c.name), ['id']);

  const clicks = only(file.statements, 'source', 'clicks') as CreateSourceStmt;
  assert.equal(clicks.columns, null);
  assert.deepEqual(
    clicks.options.map((o) => `${o.key}:${o.value.kind}:${o.value.text}`),
    ['connector:string:datagen', 'rows_per_second:number:100', 'total_rows:number:1000', 'fields.user_id.kind:string:sequence', 'fields.user_id.min:number:1', 'fields.page.values:string:a,b,c', 'follow:boolean:false'],
  );

  const enriched = only(file.statements, 'view', 'enriched') as CreateViewStmt;
  assert.deepEqual(enriched.options.map((o) => o.key), ['state_ttl']);
  assert.equal(enriched.emit?.mode, 'changes');
  const join = (enriched.query as SelectQuery).from;
  assert.equal(join.kind, 'join');
  if (join.kind === 'join') {
    assert.equal(join.joinType, 'left');
    assert.equal(join.left.kind === 'table' && join.left.alias?.name, 'o');
    assert.ok(join.right.kind === 'table');
    if (join.right.kind === 'table') {
      assert.equal(join.right.alias?.name, 'c');
      assert.deepEqual(strip(join.right.asOf), { kind: 'column', qualifier: { name: 'o', quoted: false }, name: { name: 'order_ts', quoted: false } });
    }
  }
  assert.deepEqual(file.suppressions.map((s) => `${s.code}@${s.span.start.line}:${s.span.start.column}`), ['join-without-time-bound@17:16']);

  const sessions = only(file.statements, 'view', 'sessions') as CreateViewStmt;
  const sw = (sessions.query as SelectQuery).from as WindowTvf;
  assert.equal(sw.fn, 'session');
  assert.deepEqual(sw.partitionBy.map((p) => p.name), ['user_id']);
  assert.equal(sw.timeColumn.name, 'click_ts');
  assert.deepEqual(sw.args.map((a) => (a.kind === 'interval' ? a.ms : -1)), [1_800_000]);
  assert.equal(sessions.onLate?.kind, 'drop');

  const hops = only(file.statements, 'view', 'hops') as CreateViewStmt;
  const hw = (hops.query as SelectQuery).from as WindowTvf;
  assert.equal(hw.longForm, true);
  assert.deepEqual(hw.args.map((a) => (a.kind === 'interval' ? a.ms : -1)), [60_000, 300_000]);

  const every = only(file.statements, 'view', 'everything') as CreateViewStmt;
  const eq = every.query as SelectQuery;
  assert.deepEqual(
    eq.items.map((i) => (i.kind === 'expr' && i.expr.kind === 'column' ? `${i.expr.name.name}${i.expr.name.quoted ? '(q)' : ''}` : '?')),
    ['key', 'value', 'timestamp(q)', 'date', 'count'],
  );
  assert.equal(eq.from.kind, 'subquery');
  if (eq.from.kind === 'subquery') {
    assert.equal(eq.from.query.kind, 'union_all');
    assert.equal(eq.from.alias?.name, 'u');
  }
  const late = only(file.statements, 'sink', 'late_orders') as CreateSinkStmt;
  assert.equal(late.from, null);
  assert.equal(late.query, null);
});
