// Views and ClickHouse sinks: stream relations materialize into MergeTree/ReplacingMergeTree tables;
// aggregates into an AggregatingMergeTree of states plus a read view with the sink's columns.
import type { IrSink, IrView } from '../../src/plan/ir.ts';
import { AGGREGATES } from './aggregates.ts';
import { addStmt, ensureDatabase, objectExists, selectFrom, type EmitContext, type Rel } from './model.ts';
import { clickhouseDdlTable } from '../../src/plan/clickhouse-ddl-table.ts';
import { ident, qualified } from './sql-text.ts';
import { chType, lostNullability } from './types.ts';
import { mergeSelect, nullableKeySetting, stateColumns, stateKey } from './windows.ts';

export function emitView(ctx: EmitContext, view: IrView): void {
  const rel = ctx.rels.get(view.operator);
  if (!rel) return;
  const name = qualified(ctx.db, view.name);
  if (rel.kind === 'read') {
    addStmt(ctx, 'pipeline', [`view ${view.name}: read view`], `CREATE VIEW IF NOT EXISTS ${name}\nAS ${selectFrom(rel)}`, `DROP VIEW IF EXISTS ${name}`);
    return;
  }
  const op = ctx.plan.operators.find((o) => o.id === view.operator);
  storedTable(ctx, rel, ctx.db, view.name, op?.upsertKey ?? null, [], null, null, `view ${view.name}`);
}

/** A table receiving a stream relation through a materialized view. Returns the engine used. */
function storedTable(
  ctx: EmitContext,
  rel: Rel,
  db: string,
  table: string,
  upsertKey: string[] | null,
  orderBy: string[],
  partitionBy: string | null,
  ttl: string | null,
  label: string,
  sink?: IrSink,
): string {
  const name = qualified(db, table);
  const mv = qualified(db, `${table}__mv`);
  const cols = [...rel.cols.keys()];
  const defs = cols.map((n) => `    ${ident(n)} ${chType(rel.types.get(n)!)}`);
  let engine = 'MergeTree';
  const extra: [string, string][] = [];
  if (rel.changelog) {
    engine = `ReplacingMergeTree(${ident('_version')}, ${ident('_is_deleted')})`;
    defs.push(`    ${ident('_version')} UInt64`, `    ${ident('_is_deleted')} UInt8`);
    extra.push(['_version', rel.changelog.version], ['_is_deleted', rel.changelog.deleted]);
  } else if (upsertKey?.length) {
    engine = 'ReplacingMergeTree';
  }
  let order = orderBy;
  if (engine !== 'MergeTree' && upsertKey?.length) order = withKey(ctx, sink, order, upsertKey);
  const comments = [`${label}: ${engine.replace(/\(.*/, '')}${rel.changelog ? ' keeping the latest version per key' : ''}`];
  addStmt(ctx, 'pipeline', comments, `CREATE TABLE IF NOT EXISTS ${name}\n(\n${defs.join(',\n')}\n)\nENGINE = ${engine}\n${tableTail(order, partitionBy, ttl, cols)}${nullableKeySetting(order.map((c) => rel.types.get(c)).filter((t) => t !== undefined))}`, `DROP TABLE IF EXISTS ${name}`);
  addStmt(ctx, 'pipeline', [], `CREATE MATERIALIZED VIEW IF NOT EXISTS ${mv} TO ${name}\nAS ${selectFrom(rel, extra)}`, `DROP VIEW IF EXISTS ${mv}`);
  return engine;
}

function tableTail(order: string[], partitionBy: string | null, ttl: string | null, columns: string[]): string {
  const known = new Set(columns);
  const keyExpr = (e: string): string => (known.has(e) ? ident(e) : e);
  const lines = [`ORDER BY ${order.length ? `(${order.map(keyExpr).join(', ')})` : 'tuple()'}`];
  // partition_by and ttl are ClickHouse expressions written by the user for this target.
  if (partitionBy) lines.unshift(`PARTITION BY ${partitionBy}`);
  if (ttl) lines.push(`TTL ${ttl}`);
  return lines.join('\n');
}

/** Appends key columns missing from ORDER BY (merging rows of different keys would corrupt results). */
function withKey(ctx: EmitContext, sink: IrSink | undefined, order: string[], key: string[]): string[] {
  const missing = key.filter((k) => !order.includes(k));
  if (missing.length && sink && order.length) ctx.bag.report('clickhouse-order-by-missing-key', sink.span, { sink: sink.name, missing: missing.join(', ') });
  return [...order, ...missing];
}

export function emitSink(ctx: EmitContext, sink: IrSink): void {
  // The layout as the physical plan resolved it (PhysicalSink.table); the table itself is never the
  // runtime sink's by default: both running would double every row (clickhouse-ddl-table.ts).
  const ch = ctx.physical.sinks.find((p) => p.id === sink.id)?.table;
  if (sink.connector !== 'clickhouse' || ch?.kind !== 'clickhouse') return;
  const { db, table } = clickhouseDdlTable(ctx.plan.pipeline.name, sink);
  if (`${db}.${table}` === sink.clickhouse.table) ctx.bag.report('clickhouse-ddl-table-shared', sink.span, { sink: sink.name, table: sink.clickhouse.table });
  if (!sink.input) {
    // A sink of late rows only: ClickHouse merges late rows into their window instead, so nothing
    // ever arrives here; the table still exists so that readers' queries keep working.
    ensureDatabase(ctx, db);
    const name = qualified(db, table);
    addStmt(
      ctx,
      'pipeline',
      [`sink ${sink.name}: late rows of ${sink.lateFrom.join(', ') || 'no window'}; ClickHouse DDL never writes here (see clickhouse-late-rows-merge)`],
      `CREATE TABLE IF NOT EXISTS ${name}\n(\n${sink.schema.map((c) => `    ${ident(c.name)} ${chType(c.type)}`).join(',\n')}\n)\nENGINE = MergeTree\nORDER BY tuple()`,
      `DROP TABLE IF EXISTS ${name}`,
    );
    return;
  }
  const rel = ctx.rels.get(sink.input);
  if (!rel) return;
  if (objectExists(ctx, qualified(db, table))) {
    ctx.bag.report('clickhouse-name-collision', sink.span, { sink: sink.name, table: `${db}.${table}` });
    return;
  }
  ensureDatabase(ctx, db);
  for (const c of sink.schema) {
    const paths = lostNullability(c.type, c.name);
    if (paths.length) ctx.bag.report('clickhouse-nullable-composite', sink.span, { column: c.name, paths: paths.join(', ') });
  }
  const label = `sink ${sink.name}`;
  if (rel.kind === 'stream') {
    const engine = storedTable(ctx, rel, db, table, sink.upsertKey, ch.orderBy, ch.partitionBy, ch.ttl, label, sink);
    if (engine === 'MergeTree' && fromKafka(ctx, rel)) ctx.bag.report('clickhouse-at-least-once-duplicates', sink.span, { sink: sink.name, table: `${db}.${table}`, engine });
    return;
  }
  const agg = rel.agg!;
  const name = qualified(db, table);
  const mv = qualified(db, `${table}__mv`);
  const merged = qualified(db, `${table}__merged`);
  const read = qualified(db, `${table}__read`);
  const cols = stateColumns(agg.op, agg.input);
  const order = withKey(ctx, sink, ch.orderBy, stateKey(agg.op));
  addStmt(
    ctx,
    'pipeline',
    [`${label}: AggregatingMergeTree of partial aggregates; query ${db}.${table}__read for the sink's rows`],
    `CREATE TABLE IF NOT EXISTS ${name}\n(\n${cols.map((c) => `    ${ident(c.name)} ${c.type}`).join(',\n')}\n)\nENGINE = AggregatingMergeTree\n${tableTail(order, ch.partitionBy, ch.ttl, cols.map((c) => c.name))}${nullableKeySetting(agg.op.groupKeys.map((k) => k.expr.type))}`,
    `DROP TABLE IF EXISTS ${name}`,
  );
  // Partial states are copied as inserted: the sink table merges them under its own key and TTL.
  addStmt(ctx, 'pipeline', [], `CREATE MATERIALIZED VIEW IF NOT EXISTS ${mv} TO ${name}\nAS SELECT ${cols.map((c) => ident(c.name)).join(', ')}\nFROM ${agg.stateTable}`, `DROP VIEW IF EXISTS ${mv}`);
  addStmt(ctx, 'pipeline', [], `CREATE VIEW IF NOT EXISTS ${merged}\nAS ${mergeSelect(ctx, agg.op, name, agg.input)}`, `DROP VIEW IF EXISTS ${merged}`);
  addStmt(ctx, 'pipeline', [`${label}: the sink's rows`], `CREATE VIEW IF NOT EXISTS ${read}\nAS ${selectFrom({ ...rel, from: merged })}`, `DROP VIEW IF EXISTS ${read}`);
  if (fromKafka(ctx, rel) && agg.op.aggregates.some((a) => !AGGREGATES[a.fn].idempotent)) {
    ctx.bag.report('clickhouse-at-least-once-duplicates', sink.span, { sink: sink.name, table: `${db}.${table}`, engine: 'AggregatingMergeTree' });
  }
}

function fromKafka(ctx: EmitContext, rel: Rel): boolean {
  return rel.sources.some((id) => ctx.plan.sources.find((s) => s.id === id)?.connector === 'kafka');
}
