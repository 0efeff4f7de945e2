// Compiles plan operators into relations: stateless operators compose into SQL, aggregates become
// state tables with read views, unions and join inputs become MergeTree tables fed by materialized views.
import type { IntervalJoinOp, IrExpr, IrOperator, TemporalJoinOp } from '../../src/plan/ir.ts';
import { assertNever } from '../../src/util/assert-never.ts';
import { compileExpr } from './functions.ts';
import { addStmt, fmtMs, selectFrom, tableRel, type EmitContext, type Rel } from './model.ts';
import { ident, qualified } from './sql-text.ts';
import { chType } from './types.ts';
import { emitAggregate } from './windows.ts';

export function compileOperator(ctx: EmitContext, op: IrOperator, owner: string, sourceRels: Map<string, Rel>): Rel | null {
  const input = (i: number): Rel | null => ctx.rels.get(op.inputs[i] ?? '') ?? null;
  switch (op.op) {
    case 'scan':
      return sourceRels.get(op.source) ?? null;
    case 'filter': {
      const rel = input(0);
      if (!rel) return null;
      const col = (_i: number, n: string): string => rel.cols.get(n) ?? ident(n);
      return { ...rel, where: [...rel.where, compileExpr(op.predicate, col)] };
    }
    case 'project': {
      const rel = input(0);
      if (!rel) return null;
      const col = (_i: number, n: string): string => rel.cols.get(n) ?? ident(n);
      return {
        ...rel,
        cols: new Map(op.exprs.map((e) => [e.name, compileExpr(e.expr, col)])),
        types: new Map(op.exprs.map((e) => [e.name, e.expr.type])),
      };
    }
    case 'window_agg':
    case 'group_agg': {
      const rel = input(0);
      if (!rel) return null;
      if (op.op === 'window_agg' && op.window.kind === 'session') {
        ctx.bag.report('clickhouse-session-window-unsupported', op.span, { gap: fmtMs(op.window.gapMs) });
        return null;
      }
      if (rel.kind === 'read') {
        ctx.bag.report('clickhouse-operator-unsupported', op.span, { operator: 'aggregation', reason: 'its input is itself an aggregate, which ClickHouse merges only when read' });
        return null;
      }
      if (rel.changelog) {
        ctx.bag.report('clickhouse-operator-unsupported', op.span, { operator: 'aggregation', reason: 'its input is a CDC changelog: updates and deletes would need to retract earlier rows, and materialized views only add' });
        return null;
      }
      if (op.op === 'group_agg' && op.aggregates.some((a) => a.fn === 'first_value' || a.fn === 'last_value')) {
        ctx.bag.report('clickhouse-operator-unsupported', op.span, { operator: 'FIRST_VALUE/LAST_VALUE', reason: 'without a window there is no event time to order the values by' });
        return null;
      }
      return emitAggregate(ctx, op, rel, owner);
    }
    case 'union':
      return union(ctx, op, owner);
    case 'interval_join':
    case 'temporal_join':
      return join(ctx, op, owner);
    default:
      return assertNever(op);
  }
}

function streamInputs(ctx: EmitContext, op: IrOperator, what: string): Rel[] | null {
  const rels = op.inputs.map((id) => ctx.rels.get(id) ?? null);
  if (rels.some((r) => r === null)) return null;
  if (rels.some((r) => r!.kind === 'read')) {
    ctx.bag.report('clickhouse-operator-unsupported', op.span, { operator: what, reason: 'an input is an aggregate, which ClickHouse merges only when read, so no insert can trigger it' });
    return null;
  }
  return rels as Rel[];
}

/** A MergeTree table holding a relation's rows, fed by a materialized view; returns it as a relation. */
export function materialize(ctx: EmitContext, rel: Rel, name: string, note: string): Rel {
  const table = qualified(ctx.db, name);
  const mv = qualified(ctx.db, `${name}__mv`);
  const cols = [...rel.cols.keys()].map((n) => ({ name: n, type: rel.types.get(n)! }));
  addStmt(
    ctx,
    'pipeline',
    [note],
    `CREATE TABLE IF NOT EXISTS ${table}\n(\n${cols.map((c) => `    ${ident(c.name)} ${chType(c.type)}`).join(',\n')}\n)\nENGINE = MergeTree\nORDER BY tuple()`,
    `DROP TABLE IF EXISTS ${table}`,
  );
  addStmt(ctx, 'pipeline', [], `CREATE MATERIALIZED VIEW IF NOT EXISTS ${mv} TO ${table}\nAS ${selectFrom(rel)}`, `DROP VIEW IF EXISTS ${mv}`);
  return tableRel(table, cols.map((c) => ({ name: c.name, type: c.type, metadataFrom: null })), 'stream', rel.sources);
}

function union(ctx: EmitContext, op: IrOperator, owner: string): Rel | null {
  const rels = streamInputs(ctx, op, 'UNION ALL');
  if (!rels) return null;
  const table = qualified(ctx.db, `${owner}__union`);
  addStmt(
    ctx,
    'pipeline',
    [`${owner}: UNION ALL of ${rels.length} inputs, one materialized view per input`],
    `CREATE TABLE IF NOT EXISTS ${table}\n(\n${op.schema.map((c) => `    ${ident(c.name)} ${chType(c.type)}`).join(',\n')}\n)\nENGINE = MergeTree\nORDER BY tuple()`,
    `DROP TABLE IF EXISTS ${table}`,
  );
  rels.forEach((r, i) => {
    const mv = qualified(ctx.db, `${owner}__union_mv${i}`);
    // Inputs line up by position with the union's schema.
    const names = [...r.cols.keys()];
    const aligned: Rel = { ...r, cols: new Map(op.schema.map((c, j) => [c.name, r.cols.get(names[j] ?? c.name) ?? ident(c.name)])) };
    addStmt(ctx, 'pipeline', [], `CREATE MATERIALIZED VIEW IF NOT EXISTS ${mv} TO ${table}\nAS ${selectFrom(aligned)}`, `DROP VIEW IF EXISTS ${mv}`);
  });
  return tableRel(table, op.schema, 'stream', [...new Set(rels.flatMap((r) => r.sources))]);
}

function join(ctx: EmitContext, op: IntervalJoinOp | TemporalJoinOp, owner: string): Rel | null {
  const rels = streamInputs(ctx, op, 'join');
  if (!rels) return null;
  const [left, rightIn] = rels as [Rel, Rel];
  const lNames = [...left.cols.keys()];
  const rNames = [...rightIn.cols.keys()];
  const lCol = (n: string): string => `${ident('l')}.${ident(`__l${lNames.indexOf(n)}`)}`;
  const rCol = (n: string): string => `${ident('r')}.${ident(`__r${rNames.indexOf(n)}`)}`;
  const resolve = (i: number, n: string): string => (i === 0 ? lCol(n) : rCol(n));
  const leftWhere = left.where.length ? ` WHERE ${left.where.join(' AND ')}` : '';
  const leftSub = `(SELECT ${lNames.map((n, i) => `${left.cols.get(n)} AS ${ident(`__l${i}`)}`).join(', ')} FROM ${left.from}${leftWhere}) AS ${ident('l')}`;
  let rightSub: string;
  const on: string[] = [];
  const leftName = sourceNames(ctx, left);
  const rightName = sourceNames(ctx, rightIn);
  if (op.op === 'temporal_join') {
    if (!rightIn.changelog) {
      ctx.bag.report('clickhouse-operator-unsupported', op.span, { operator: 'temporal join', reason: 'its right side is not a CDC changelog table' });
      return null;
    }
    // FINAL collapses the ReplacingMergeTree to each key's latest row at insert time.
    const rw = [...rightIn.where, `(${rightIn.changelog.deleted} = 0)`];
    rightSub = `(SELECT ${rNames.map((n, i) => `${rightIn.cols.get(n)} AS ${ident(`__r${i}`)}`).join(', ')} FROM ${rightIn.from} FINAL WHERE ${rw.join(' AND ')}) AS ${ident('r')}`;
    op.leftKeys.forEach((k, i) => on.push(`${compileExpr(k, resolve)} = ${rCol(op.rightKeys[i]!)}`));
    ctx.bag.report('clickhouse-temporal-join-latest', op.span, { right: rightName });
  } else {
    // The right side must be stored to be joined at the left side's insert time.
    const stored = materialize(ctx, rightIn, `${owner}__right`, `${owner}: right side of the interval join, kept for lookups at left-side inserts (no TTL: add one past the join bound of ${fmtMs(Math.max(Math.abs(op.lowerMs), Math.abs(op.upperMs)))})`);
    rightSub = `(SELECT ${rNames.map((n, i) => `${ident(n)} AS ${ident(`__r${i}`)}`).join(', ')} FROM ${stored.from}) AS ${ident('r')}`;
    op.leftKeys.forEach((k, i) => on.push(`${compileExpr(k, resolve)} = ${compileExpr(op.rightKeys[i]!, resolve)}`));
    const diff = `(toUnixTimestamp64Milli(${lCol(op.leftTime)}) - toUnixTimestamp64Milli(${rCol(op.rightTime)}))`;
    on.push(`${diff} >= ${op.lowerMs}`, `${diff} <= ${op.upperMs}`);
  }
  if (op.residual) on.push(compileExpr(op.residual, resolve));
  ctx.bag.report('clickhouse-mv-join-left-only', op.span, { left: leftName, right: rightName });
  const kind = op.joinType === 'inner' ? 'INNER JOIN' : 'LEFT JOIN';
  const rel: Rel = {
    from: `${leftSub}\n${kind} ${rightSub} ON ${on.join(' AND ')}`,
    cols: new Map(op.outputMap.map((m) => [m.name, m.input === 0 ? lCol(m.column) : rCol(m.column)])),
    types: new Map(op.schema.map((c) => [c.name, c.type])),
    where: [],
    kind: 'stream',
    changelog: null,
    sources: [...new Set([...left.sources])],
    agg: null,
  };
  return rel;
}

function sourceNames(ctx: EmitContext, rel: Rel): string {
  return rel.sources.map((id) => ctx.plan.sources.find((s) => s.id === id)?.name ?? id).join(', ');
}

export type { IrExpr };
