// Joins: interval joins (equi-keys plus a time bound between the two event-time columns →
// lowerMs/upperMs) and temporal joins (FOR SYSTEM_TIME AS OF against a keyed changelog).
import type { JoinItem, TableRef } from '../syntax/ast.ts';
import type { IrColumn, IrExpr, StateBound } from '../plan/ir.ts';
import { withNullable } from '../types/sql-type.ts';
import type { Checker, Stream } from './checker.ts';
import { Scope, uniquify, type ScopeRelation } from './scope.ts';
import { call, expectBoolean, typeExpr, type ExprEnv } from './expr.ts';
import type { OwnerSettings } from './aggregates.ts';

export interface FromResult {
  stream: Stream;
  scope: Scope;
  /**
   * Set when the relation is in error but its columns are known: the rest of the query is
   * still checked (to report all errors at once), and the caller discards its operators.
   */
  failed?: boolean;
}

const conjuncts = (e: IrExpr): IrExpr[] => (e.kind === 'call' && e.fn === 'and' ? e.args.flatMap(conjuncts) : [e]);

function inputsOf(e: IrExpr, acc = new Set<number>()): Set<number> {
  switch (e.kind) {
    case 'col':
      acc.add(e.input);
      break;
    case 'lit':
      break;
    case 'call':
      e.args.forEach((a) => inputsOf(a, acc));
      break;
    case 'cast':
      inputsOf(e.operand, acc);
      break;
    case 'case':
      e.whens.forEach((w) => (inputsOf(w.when, acc), inputsOf(w.then, acc)));
      if (e.else) inputsOf(e.else, acc);
      break;
  }
  return acc;
}

const only = (e: IrExpr, input: number): boolean => {
  const s = inputsOf(e);
  return s.size === 1 && s.has(input);
};

/** `col` or `col ± INTERVAL` on a timestamp: the column and the offset in ms. */
function timeTerm(e: IrExpr): { col: Extract<IrExpr, { kind: 'col' }>; offset: number } | null {
  if (e.kind === 'col' && e.type.kind === 'timestamp') return { col: e, offset: 0 };
  if (e.kind === 'call' && (e.fn === 'add' || e.fn === 'sub') && e.args[1]?.kind === 'lit' && e.args[1].type.kind === 'interval') {
    const inner = timeTerm(e.args[0]!);
    const v = Number(e.args[1].value);
    return inner && { col: inner.col, offset: inner.offset + (e.fn === 'add' ? v : -v) };
  }
  return null;
}

/** Plans `left JOIN right ON ...`; both sides are already planned. */
export function planJoin(ck: Checker, j: JoinItem, prefix: string, left: FromResult, right: FromResult, owner: OwnerSettings): FromResult | null {
  const bag = ck.bag;
  const lOp = left.stream.op;
  const rOp = right.stream.op;
  // Output columns: left then right, repeated names made unique as Flink does (id, id0).
  const outNames = uniquify([...lOp.schema.map((c) => c.name), ...rOp.schema.map((c) => c.name)]);
  const outputMap = [
    ...lOp.schema.map((c, i) => ({ name: outNames[i]!, input: 0, column: c.name })),
    ...rOp.schema.map((c, i) => ({ name: outNames[lOp.schema.length + i]!, input: 1, column: c.name })),
  ];
  const schema: IrColumn[] = [
    ...lOp.schema.map((c, i) => ({ ...c, name: outNames[i]! })),
    ...rOp.schema.map((c, i) => ({ ...c, name: outNames[lOp.schema.length + i]!, type: j.joinType === 'left' ? withNullable(c.type, true) : c.type })),
  ];
  const rename = (input: number, col: string): string => outputMap.find((m) => m.input === input && m.column === col)!.name;
  const outScope = new Scope(
    [
      ...left.scope.relations.map((r) => ({ name: r.name, columns: r.columns.map((c) => ({ ...c, input: 0, irName: rename(0, c.irName) })) })),
      ...right.scope.relations.map((r) => ({
        name: r.name,
        columns: r.columns.map((c) => ({ ...c, input: 0, irName: rename(1, c.irName), type: j.joinType === 'left' ? withNullable(c.type, true) : c.type })),
      })),
    ],
    'the joined relations',
  );
  const bounded = left.stream.bounded && right.stream.bounded;
  const label = `${left.stream.label} ⋈ ${right.stream.label}`;
  const timeColumn = lOp.timeColumn ? rename(0, lOp.timeColumn) : null;

  const fail = (): FromResult => ({ stream: left.stream, scope: outScope, failed: true });
  const onScope = new Scope(
    [...left.scope.relations.map((r) => withInput(r, 0)), ...right.scope.relations.map((r) => withInput(r, 1))],
    'the joined relations',
  );
  const env: ExprEnv = { scope: onScope, bag, clause: 'ON', windowColumns: 'in a join condition', aggregate: null };
  const on = typeExpr(j.on, env);
  if (!on || !expectBoolean(on, j.on.span, 'the ON condition', env)) return fail();

  const keys: { l: IrExpr; r: IrExpr }[] = [];
  const residual: IrExpr[] = [];
  let lower: number | null = null;
  let upper: number | null = null;
  let badTime: string | null = null;
  /** Time comparisons read as interval bounds; a temporal join applies them as a residual instead. */
  const timeBounds: IrExpr[] = [];
  for (const c of conjuncts(on)) {
    if (c.kind === 'call' && c.fn === 'eq' && c.args.length === 2) {
      const [a, b] = c.args as [IrExpr, IrExpr];
      if (only(a, 0) && only(b, 1)) {
        keys.push({ l: a, r: b });
        continue;
      }
      if (only(a, 1) && only(b, 0)) {
        keys.push({ l: b, r: a });
        continue;
      }
    }
    if (c.kind === 'call' && ['ge', 'gt', 'le', 'lt', 'eq'].includes(c.fn) && c.args.length === 2) {
      const a = timeTerm(c.args[0]!);
      const b = timeTerm(c.args[1]!);
      if (a && b && a.col.input !== b.col.input) {
        const lt = a.col.input === 0 ? a : b;
        const rt = a.col.input === 0 ? b : a;
        if (lt.col.name !== lOp.timeColumn || rt.col.name !== rOp.timeColumn) {
          badTime = lt.col.name !== lOp.timeColumn ? lt.col.name : rt.col.name;
          residual.push(c);
          continue;
        }
        // Rewrite `A op B` as `l - r op k`.
        let fn = c.fn;
        let k: number;
        if (a.col.input === 0) k = b.offset - a.offset;
        else {
          k = a.offset - b.offset;
          fn = ({ ge: 'le', gt: 'lt', le: 'ge', lt: 'gt', eq: 'eq' } as Record<string, string>)[fn]! as typeof fn;
        }
        timeBounds.push(c);
        // Event times have millisecond precision, so a strict bound is the next millisecond.
        if (fn === 'ge' || fn === 'eq') lower = lower === null ? k : Math.max(lower, k);
        if (fn === 'gt') lower = lower === null ? k + 1 : Math.max(lower, k + 1);
        if (fn === 'le' || fn === 'eq') upper = upper === null ? k : Math.min(upper, k);
        if (fn === 'lt') upper = upper === null ? k - 1 : Math.min(upper, k - 1);
        continue;
      }
    }
    residual.push(c);
  }
  const residualExpr = residual.length === 0 ? null : residual.reduce((x, y) => call('and', [x, y], withNullable(x.type, x.type.nullable || y.type.nullable)));

  const rightRef = j.right.kind === 'table' ? (j.right as TableRef) : null;
  if (rightRef?.asOf) {
    const asOf = typeExpr(rightRef.asOf, { ...env, scope: new Scope(left.scope.relations.map((r) => withInput(r, 0)), 'the left side') });
    if (!asOf) return fail();
    if (asOf.kind !== 'col' || asOf.name !== lOp.timeColumn) {
      bag.report('temporal-join-invalid', rightRef.asOf.span, { detail: `FOR SYSTEM_TIME AS OF must name the event-time column of the left side${lOp.timeColumn ? ` ('${lOp.timeColumn}')` : ', which has none (declare a WATERMARK)'}` });
      return fail();
    }
    if (rOp.changelog === 'append' || !rOp.upsertKey || rOp.upsertKey.length === 0) {
      bag.report('temporal-join-invalid', rightRef.span, { detail: `'${right.stream.label}' must be a changelog with a primary key (e.g. a postgres-cdc source)` });
      return fail();
    }
    if (lOp.changelog !== 'append') {
      bag.report('temporal-join-invalid', j.left.span, { detail: `the left side '${left.stream.label}' must be append-only` });
      return fail();
    }
    const pk = rOp.upsertKey;
    const leftKeys: IrExpr[] = [];
    const missing: string[] = [];
    for (const k of pk) {
      const pair = keys.find((p) => p.r.kind === 'col' && p.r.name === k);
      if (pair) leftKeys.push(pair.l);
      else missing.push(k);
    }
    if (missing.length > 0) {
      bag.report('temporal-join-invalid', j.on.span, { detail: `ON must equate every primary key column of '${right.stream.label}' with the left side (missing: ${missing.join(', ')})` });
      return fail();
    }
    const extra = keys.filter((p) => !(p.r.kind === 'col' && pk.includes(p.r.name))).map((p) => call('eq', [p.l, p.r], { kind: 'boolean', nullable: true }));
    const allResidual = [...extra, ...timeBounds, ...(residualExpr ? [residualExpr] : [])];
    const stateBound: StateBound =
      owner.stateTtlMs !== null
        ? { kind: 'ttl', ttlMs: owner.stateTtlMs }
        : { kind: 'unbounded', reason: `keeps the latest version of every key of '${right.stream.label}'` };
    const op = ck.push({
      op: 'temporal_join',
      id: ck.allocId(`${prefix}/join`),
      inputs: [lOp.id, rOp.id],
      schema,
      changelog: 'append',
      upsertKey: null,
      stateBound,
      timeColumn,
      joinType: j.joinType,
      leftKeys,
      rightKeys: [...pk],
      asOfColumn: asOf.name,
      residual: allResidual.length === 0 ? null : allResidual.reduce((x, y) => call('and', [x, y], { kind: 'boolean', nullable: true })),
      outputMap,
      span: j.span,
    });
    return { stream: { op, bounded, label }, scope: outScope };
  }

  if (lower === null || upper === null) {
    if (badTime) bag.report('join-time-not-rowtime', j.on.span, { column: badTime });
    else if (owner.stateTtlMs !== null) bag.report('join-ttl-unsupported', j.span, {});
    else bag.report('unbounded-join', j.span, {});
    return fail();
  }
  for (const [side, s] of [[j.left, left.stream], [j.right, right.stream]] as const) {
    if (s.op.changelog !== 'append') {
      bag.report('join-on-changelog', side.span, { relation: s.label });
      return fail();
    }
  }
  const op = ck.push({
    op: 'interval_join',
    id: ck.allocId(`${prefix}/join`),
    inputs: [lOp.id, rOp.id],
    schema,
    changelog: 'append',
    upsertKey: null,
    stateBound: { kind: 'interval', retainMs: Math.max(Math.abs(lower), Math.abs(upper)) + owner.allowedLatenessMs },
    timeColumn,
    joinType: j.joinType,
    leftKeys: keys.map((k) => k.l),
    rightKeys: keys.map((k) => k.r),
    leftTime: lOp.timeColumn!,
    rightTime: rOp.timeColumn!,
    lowerMs: lower,
    upperMs: upper,
    residual: residualExpr,
    outputMap,
    allowedLatenessMs: owner.allowedLatenessMs,
    late: owner.late,
    span: j.span,
  });
  return { stream: { op, bounded, label }, scope: outScope };
}

function withInput(r: ScopeRelation, input: number): ScopeRelation {
  return { name: r.name, columns: r.columns.map((c) => ({ ...c, input })) };
}
