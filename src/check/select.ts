// Query planning: FROM (tables, window functions, joins, subqueries), WHERE, and the SELECT
// list become operators; grouped queries go through ./aggregates.ts, UNION ALL into a union.
import type { FromItem, Query, SelectQuery } from '../syntax/ast.ts';
import type { IrNamedExpr } from '../plan/ir.ts';
import { T, sameType, withNullable, type SqlType } from '../types/sql-type.ts';
import type { Checker, Stream } from './checker.ts';
import { Scope, type ScopeColumn } from './scope.ts';
import { containsAggregate, expectBoolean, typeExpr, type ExprEnv } from './expr.ts';
import { planAggregate, type OwnerSettings, type QueryShape } from './aggregates.ts';
import { typeSelectList } from './select-list.ts';
import { checkWindow, windowScopeColumns, type WindowInfo } from './windows.ts';
import { planJoin, type FromResult } from './joins.ts';
import { coerce } from './literals.ts';
import { unify } from './type-rules.ts';
import { fmt } from './expr.ts';

export interface PlannedQuery {
  stream: Stream;
  /** What the query computes (for EMIT/lateness rules); a union reports each input's shape. */
  shapes: QueryShape[];
}

export function planQuery(ck: Checker, q: Query, prefix: string, owner: OwnerSettings): PlannedQuery | null {
  if (q.kind === 'select') return planSelect(ck, q, prefix, owner);
  const parts = q.inputs.map((s, i) => planSelect(ck, s, `${prefix}/u${i + 1}`, owner));
  if (parts.some((p) => !p)) return null;
  const ins = parts as PlannedQuery[];
  const first = ins[0]!.stream.op.schema;
  let ok = true;
  for (let i = 1; i < ins.length; i++) {
    const n = ins[i]!.stream.op.schema.length;
    if (n !== first.length) {
      ck.bag.report('union-arity', q.inputs[i]!.span, { expected: first.length, actual: n });
      ok = false;
    }
  }
  if (!ok) return null;
  const types: SqlType[] = [];
  for (let c = 0; c < first.length; c++) {
    let t: SqlType | null = first[c]!.type;
    for (const p of ins) t = t && unify(t, p.stream.op.schema[c]!.type);
    if (!t) {
      ck.bag.report('incompatible-types', q.span, { what: `UNION ALL column '${first[c]!.name}'`, types: ins.map((p) => fmt(p.stream.op.schema[c]!.type)).join(', ') });
      ok = false;
    }
    types.push(t ?? first[c]!.type);
  }
  if (!ok) return null;
  // Inputs whose column types differ from the union's get a converting projection.
  const inputs = ins.map((p, i) => {
    const sch = p.stream.op.schema;
    if (sch.every((c, k) => sameType(c.type, types[k]!) && c.name === first[k]!.name)) return p.stream;
    const exprs: IrNamedExpr[] = sch.map((c, k) => ({ name: first[k]!.name, expr: coerce({ kind: 'col', input: 0, name: c.name, type: c.type }, withNullable(types[k]!, types[k]!.nullable)) }));
    return ck.addProject(`${prefix}/u${i + 1}`, p.stream, exprs, q.inputs[i]!.span, 'cast');
  });
  const timeCols = new Set(inputs.map((s) => s.op.timeColumn));
  const allAppend = inputs.every((s) => s.op.changelog === 'append');
  const op = ck.push({
    op: 'union',
    id: ck.allocId(`${prefix}/union`),
    inputs: inputs.map((s) => s.op.id),
    schema: first.map((c, k) => ({ name: c.name, type: types[k]!, metadataFrom: null })),
    changelog: allAppend ? 'append' : 'retract',
    upsertKey: null,
    stateBound: { kind: 'stateless' },
    timeColumn: timeCols.size === 1 ? [...timeCols][0]! : null,
    span: q.span,
  });
  return { stream: { op, bounded: inputs.every((s) => s.bounded), label: 'UNION ALL' }, shapes: ins.flatMap((p) => p.shapes) };
}

interface FromPlan extends FromResult {
  window: WindowInfo | null;
}

function planFrom(ck: Checker, f: FromItem, prefix: string, owner: OwnerSettings): FromPlan | null {
  switch (f.kind) {
    case 'table': {
      if (f.name.parts.length !== 1) {
        ck.bag.report('unknown-relation', f.name.span, { name: f.name.parts.map((p) => p.name).join('.'), suggestion: null });
        return null;
      }
      const id = f.name.parts[0]!;
      const sym = ck.lookupRelation(id);
      if (!sym) return null;
      const stream = ck.readRelation(sym, prefix, f.span);
      if (!stream) return null;
      return { stream, scope: relationScope(stream, f.alias?.name ?? sym.name), window: null };
    }
    case 'window': {
      if (f.input.name.parts.length !== 1) {
        ck.bag.report('unknown-relation', f.input.name.span, { name: f.input.name.parts.map((p) => p.name).join('.'), suggestion: null });
        return null;
      }
      const sym = ck.lookupRelation(f.input.name.parts[0]!);
      if (!sym) return null;
      const stream = ck.readRelation(sym, prefix, f.input.span);
      if (!stream) return null;
      const checked = checkWindow(ck, f, stream);
      // A window in error still gives its columns, so the rest of the query is checked too.
      const info: WindowInfo = checked ?? { ir: { kind: 'tumble', sizeMs: 1, offsetMs: 0 }, timeColumn: stream.op.timeColumn ?? '', columnType: T.timestamp(3, false), spanMs: 0 };
      const scope = relationScope(stream, f.alias?.name ?? f.input.alias?.name ?? sym.name);
      // The new window's columns hide same-named input columns (a window over a windowed view).
      const rel = scope.relations[0]!;
      rel.columns = rel.columns.filter((c) => !['window_start', 'window_end', 'window_time'].includes(c.name.toLowerCase()));
      rel.columns.push(...windowScopeColumns(info));
      return { stream, scope, window: info, failed: !checked };
    }
    case 'subquery': {
      const sub = planQuery(ck, f.query, `${prefix}/${f.alias?.name ?? 'subquery'}`, { ...owner, emit: null, late: { kind: 'unspecified' }, allowedLatenessMs: 0 });
      if (!sub) return null;
      return { failed: false, stream: sub.stream, scope: relationScope(sub.stream, f.alias?.name ?? null), window: null };
    }
    case 'join': {
      const l = planFrom(ck, f.left, prefix, owner);
      const r = planFrom(ck, f.right, prefix, owner);
      if (!l || !r) return null;
      for (const side of [l, r]) {
        if (side.window) {
          ck.bag.report('window-without-aggregate', f.span, {});
          return null;
        }
      }
      const names = [...l.scope.relations, ...r.scope.relations].map((x) => x.name?.toLowerCase()).filter(Boolean);
      const dup = names.find((n, i) => names.indexOf(n) !== i);
      if (dup) {
        ck.bag.report('duplicate-alias', f.right.span, { name: dup });
        return null;
      }
      const j = planJoin(ck, f, prefix, l, r, owner);
      return j && { ...j, window: null, failed: j.failed === true || l.failed === true || r.failed === true };
    }
  }
}

function relationScope(s: Stream, name: string | null): Scope {
  const columns: ScopeColumn[] = s.op.schema.map((c) => ({ name: c.name, type: c.type, input: 0, irName: c.name }));
  return new Scope([{ name, columns }], name ? `'${name}'` : 'the subquery');
}

export function planSelect(ck: Checker, q: SelectQuery, prefix: string, owner: OwnerSettings): PlannedQuery | null {
  const from = planFrom(ck, q.from, prefix, owner);
  if (!from) {
    // Still type nothing else: every name would be unknown. Report only FROM's errors.
    return null;
  }
  let stream = from.stream;
  const scope = from.scope;
  let ok = !from.failed;
  if (q.where) {
    const env: ExprEnv = { scope, bag: ck.bag, clause: 'WHERE', windowColumns: 'in WHERE (rows are filtered before they are assigned to windows)', aggregate: null };
    const p = typeExpr(q.where, env);
    if (p && expectBoolean(p, q.where.span, 'WHERE', env)) stream = ck.addFilter(prefix, 'filter', stream, p, q.where.span);
    else ok = false;
  }
  const aggregating = q.groupBy.length > 0 || q.having !== null || q.items.some((it) => it.kind === 'expr' && containsAggregate(it.expr));
  if (from.window && !aggregating) {
    ck.bag.report('window-without-aggregate', q.from.span, {});
    return null;
  }
  if (aggregating) {
    const out = planAggregate({ ck, prefix, q, scope, input: stream, window: from.window, owner });
    return out && ok ? { stream: out, shapes: [from.window ? 'window_agg' : 'group_agg'] } : null;
  }
  const env: ExprEnv = { scope, bag: ck.bag, clause: 'SELECT', windowColumns: 'here', aggregate: null };
  const exprs = typeSelectList(q, scope, env);
  if (!exprs || !ok) return null;
  return { stream: ck.addProject(prefix, stream, exprs, q.span), shapes: ['plain'] };
}
