// Aggregation: GROUP BY keys, aggregate calls and their types (Flink's rules), the grouped
// SELECT/HAVING typed over the aggregate's output, and the window_agg/group_agg operator.
import type { Expr, SelectQuery } from '../syntax/ast.ts';
import type { IrAggFn, IrAggregate, IrExpr, IrNamedExpr, LateHandling, StateBound } from '../plan/ir.ts';
import type { Span } from '../diagnostics/span.ts';
import { DiagnosticBag } from '../diagnostics/bag.ts';
import { T, isNumeric, withNullable } from '../types/sql-type.ts';
import type { Checker, Stream } from './checker.ts';
import type { Scope } from './scope.ts';
import type { WindowInfo } from './windows.ts';
import { containsAggregate, expectBoolean, fmt, typeExpr, type CallExpr, type ExprEnv } from './expr.ts';
import { avgType, sumType } from './type-rules.ts';
import { isAggregateName } from './functions.ts';
import { selectNames, storable } from './select-list.ts';
import { uniquify } from './scope.ts';

/** What the statement owning a query says about emission, lateness and state. */
export interface OwnerSettings {
  kind: 'view' | 'sink';
  name: string;
  span: Span;
  emit: 'on_window_close' | 'changes' | null;
  allowedLatenessMs: number;
  late: LateHandling;
  stateTtlMs: number | null;
}

export type QueryShape = 'plain' | 'window_agg' | 'group_agg';

const key = (e: IrExpr): string => JSON.stringify(e);

/** Types one aggregate call; `argEnv` types its argument (aggregates there are nested ones). */
export function typeAggregate(
  e: CallExpr,
  argEnv: ExprEnv,
  grouped: boolean,
): { fn: IrAggFn; arg: IrExpr | null; type: IrAggregate['type'] } | null {
  const name = e.name.name.toLowerCase();
  const bag = argEnv.bag;
  if (e.star) {
    if (name !== 'count' || e.args.length > 0) {
      bag.report('invalid-aggregate-call', e.span, { name, detail: '* is only valid in COUNT(*)' });
      return null;
    }
    return { fn: 'count_star', arg: null, type: T.bigint(false) };
  }
  if (e.args.length !== 1) {
    bag.report('wrong-arity', e.span, { name, expected: '1', actual: e.args.length });
    return null;
  }
  if (e.distinct && name !== 'count') {
    bag.report('invalid-aggregate-call', e.span, { name, detail: 'DISTINCT is only supported in COUNT(DISTINCT ...)' });
    return null;
  }
  const arg = typeExpr(e.args[0]!, argEnv);
  if (!arg) return null;
  // Over a group an aggregate has at least one row; a global aggregate may have none, hence NULL.
  const nullable = arg.type.nullable || !grouped;
  const numeric = (): boolean => {
    if (isNumeric(arg.type)) return true;
    bag.report('invalid-aggregate-call', e.args[0]!.span, { name, detail: `needs a numeric argument, not ${fmt(arg.type)}` });
    return false;
  };
  switch (name) {
    case 'count':
      return { fn: e.distinct ? 'count_distinct' : 'count', arg, type: T.bigint(false) };
    case 'approx_count_distinct':
      return { fn: 'approx_count_distinct', arg, type: T.bigint(false) };
    case 'sum':
      return numeric() ? { fn: 'sum', arg, type: sumType(arg.type, nullable) } : null;
    case 'avg':
      return numeric() ? { fn: 'avg', arg, type: avgType(arg.type, nullable) } : null;
    case 'min':
    case 'max':
      if (['array', 'map', 'row', 'null'].includes(arg.type.kind)) {
        bag.report('invalid-aggregate-call', e.args[0]!.span, { name, detail: `cannot order values of type ${fmt(arg.type)}` });
        return null;
      }
      return { fn: name, arg, type: withNullable(arg.type, nullable) };
    case 'first_value':
    case 'last_value':
      return { fn: name, arg, type: withNullable(arg.type, true) };
    default:
      bag.report('internal-error', e.span, { detail: `aggregate ${name} listed but not typed` });
      return null;
  }
}

interface AggPlanArgs {
  ck: Checker;
  prefix: string;
  q: SelectQuery;
  scope: Scope;
  input: Stream;
  window: WindowInfo | null;
  owner: OwnerSettings;
}

/** Plans a grouped SELECT: agg operator → HAVING filter → project. */
export function planAggregate(a: AggPlanArgs): Stream | null {
  const { ck, q, scope, window } = a;
  const bag = ck.bag;
  let ok = true;
  const preEnv = (clause: string, reason: string): ExprEnv => ({
    scope,
    bag,
    clause,
    windowColumns: reason,
    aggregate: null,
  });

  // ---- GROUP BY
  const keys: { name: string; expr: IrExpr }[] = [];
  const windowCols = new Set<'window_start' | 'window_end' | 'window_time'>();
  // When a key failed to type, "not grouped" errors would only be guesses: they are not reported.
  let keysFailed = false;
  for (const g of q.groupBy) {
    if (g.kind === 'column' && window) {
      const r = scope.resolve(g.qualifier, g.name, g.span, new DiagnosticBag());
      if (r.ok && r.column.window) {
        windowCols.add(r.column.window);
        continue;
      }
    }
    const x = typeExpr(g, preEnv('GROUP BY', 'inside a GROUP BY expression (group by the window column itself)'));
    if (!x && g.kind === 'column' && !g.qualifier) {
      // Flink SQL does not let GROUP BY name a SELECT alias; say so when that is what happened.
      const alias = q.items.find((it) => it.kind === 'expr' && it.alias && it.alias.name.toLowerCase() === g.name.name.toLowerCase());
      const d = bag.items.at(-1);
      if (alias && d?.code === 'unknown-column') d.notes.push(`'${g.name.name}' is an alias of the SELECT list; GROUP BY cannot refer to it (as in Flink SQL): repeat the expression`);
    }
    if (!x) {
      ok = false;
      keysFailed = true;
      continue;
    }
    if (keys.some((k) => key(k.expr) === key(x))) continue;
    keys.push({ name: '', expr: x });
  }
  if (window) {
    const missing = (['window_start', 'window_end'] as const).filter((w) => !windowCols.has(w));
    if (missing.length > 0) {
      bag.report('window-group-missing', q.groupBy[0] ? spanOfAll(q.groupBy) : q.span, { missing: missing.join(' and ') });
      ok = false;
    }
    windowCols.add('window_start');
    windowCols.add('window_end');
    if (window.ir.kind === 'session') {
      const grouped = new Set(keys.flatMap((k) => (k.expr.kind === 'col' ? [k.expr.name] : [])));
      const missing = window.ir.partitionBy.filter((p) => !grouped.has(p));
      if (missing.length > 0) {
        bag.report('session-partition-not-grouped', q.groupBy[0] ? spanOfAll(q.groupBy) : q.span, { missing: missing.join(', ') });
        ok = false;
      }
    }
  }
  // Key names: the column's name, or the alias of a SELECT item that is exactly the key, else _g<i>.
  const scratchType = (e: Expr): IrExpr | null => typeExpr(e, { ...preEnv('SELECT', 'allow'), bag: new DiagnosticBag(), windowColumns: 'allow' });
  keys.forEach((k, i) => {
    if (k.expr.kind === 'col') k.name = k.expr.name;
    else {
      const item = q.items.find((it) => it.kind === 'expr' && it.alias && !containsAggregate(it.expr) && scratchType(it.expr) && key(scratchType(it.expr)!) === key(k.expr));
      k.name = item && item.kind === 'expr' ? item.alias!.name : `_g${i}`;
    }
  });
  // Key names must be unique next to each other and to the window columns.
  const unique = uniquify(['window_start', 'window_end', 'window_time', ...keys.map((k) => k.name)]).slice(3);
  keys.forEach((k, i) => (k.name = unique[i]!));

  // ---- aggregates, typed while the grouped SELECT and HAVING are typed
  const aggs: (IrAggregate & { key: string })[] = [];
  const aliasOf = new Map<Expr, string>();
  for (const it of q.items) if (it.kind === 'expr' && it.alias && it.expr.kind === 'call' && isAggregateName(it.expr.name.name)) aliasOf.set(it.expr, it.alias.name);
  const taken = (): string[] => [...keys.map((k) => k.name), ...windowCols, ...aggs.map((x) => x.name)];
  const grouped = keys.length > 0 || window !== null;
  const nestedEnv: ExprEnv = {
    ...preEnv('an aggregate argument', 'inside an aggregate'),
    aggregate: (inner, env) => {
      env.bag.report('nested-aggregate', inner.span, { name: inner.name.name });
      return null;
    },
  };
  const onAggregate = (c: CallExpr): IrExpr | null => {
    const t = typeAggregate(c, nestedEnv, grouped);
    if (!t) return null;
    const k = JSON.stringify([t.fn, t.arg]);
    let agg = aggs.find((x) => x.key === k);
    if (!agg) {
      const wanted = aliasOf.get(c) ?? `_a${aggs.length}`;
      const name = uniquify([...taken(), wanted]).at(-1)!;
      agg = { name, fn: t.fn, arg: t.arg, type: t.type, key: k };
      aggs.push(agg);
    }
    return { kind: 'col', input: 0, name: agg.name, type: agg.type };
  };
  const windowType = window?.columnType ?? T.timestamp(3, false);
  const intercept = (e: Expr, env: ExprEnv): IrExpr | null | undefined => {
    if (containsAggregate(e) || e.kind === 'number' || e.kind === 'string' || e.kind === 'boolean' || e.kind === 'null' || e.kind === 'interval' || e.kind === 'typed_literal')
      return undefined;
    const scratch = new DiagnosticBag();
    const x = typeExpr(e, { ...preEnv(env.clause, 'allow'), bag: scratch, windowColumns: 'allow' });
    if (x && !scratch.hasErrors) {
      if (x.kind === 'col' && window && (x.name === 'window_start' || x.name === 'window_end' || x.name === 'window_time')) {
        const wc = scope.allColumns().find((c) => c.window && c.irName === x.name);
        if (wc) {
          windowCols.add(wc.window!);
          return { kind: 'col', input: 0, name: wc.window!, type: windowType };
        }
      }
      const k = keys.find((kk) => key(kk.expr) === key(x));
      if (k) return { kind: 'col', input: 0, name: k.name, type: k.expr.type };
    }
    if (e.kind === 'column') {
      if (!x || scratch.hasErrors) return typeExpr(e, { ...preEnv(env.clause, 'allow'), windowColumns: 'allow' });
      if (!keysFailed) bag.report('column-not-grouped', e.span, { name: e.qualifier ? `${e.qualifier.name}.${e.name.name}` : e.name.name });
      return null;
    }
    return undefined;
  };
  const postEnv = (clause: string): ExprEnv => ({ scope, bag, clause, windowColumns: 'allow', aggregate: onAggregate, intercept });

  const names = selectNames(q, scope);
  const exprs: IrNamedExpr[] = [];
  q.items.forEach((it, i) => {
    if (it.kind === 'star') {
      const cols = scope.star(it.qualifier, bag) ?? [];
      for (const c of cols) {
        const kk = keys.find((k) => k.expr.kind === 'col' && k.expr.name === c.irName);
        if (c.window) windowCols.add(c.window);
        if (c.window) exprs.push({ name: '', expr: { kind: 'col', input: 0, name: c.window, type: windowType } });
        else if (kk) exprs.push({ name: '', expr: { kind: 'col', input: 0, name: kk.name, type: kk.expr.type } });
        else {
          if (!keysFailed) bag.report('column-not-grouped', it.span, { name: c.name });
          ok = false;
        }
      }
      return;
    }
    const x = typeExpr(it.expr, postEnv('SELECT'));
    if (!x || !storable(x, it.span, postEnv('SELECT'))) ok = false;
    else exprs.push({ name: String(i), expr: x });
  });
  const having = q.having ? typeExpr(q.having, postEnv('HAVING')) : null;
  if (q.having && (!having || !expectBoolean(having, q.having.span, 'HAVING', postEnv('HAVING')))) ok = false;
  if (!ok) return null;
  // Names were computed per item (stars expanded); map them onto the typed expressions in order.
  exprs.forEach((e, i) => (e.name = names[i]!));
  if (q.items.some((it) => it.kind === 'star') && names.length !== exprs.length) return null;

  return buildAggOperators(a, keys, aggs.map(({ key: _k, ...rest }) => rest), [...windowCols], having, exprs);
}

function buildAggOperators(
  a: AggPlanArgs,
  keys: { name: string; expr: IrExpr }[],
  aggregates: IrAggregate[],
  windowColsUsed: ('window_start' | 'window_end' | 'window_time')[],
  having: IrExpr | null,
  exprs: IrNamedExpr[],
): Stream | null {
  const { ck, prefix, input, window, owner, q } = a;
  const groupKeys: IrNamedExpr[] = keys.map((k) => ({ name: k.name, expr: k.expr }));
  const keySchema = keys.map((k) => ({ name: k.name, type: k.expr.type, metadataFrom: null }));
  const aggSchema = aggregates.map((g) => ({ name: g.name, type: g.type, metadataFrom: null }));
  let stream: Stream;
  if (window) {
    const order = ['window_start', 'window_end', 'window_time'] as const;
    const windowColumns = order.filter((w) => windowColsUsed.includes(w));
    const emit = owner.emit ?? 'on_window_close';
    const op = ck.push({
      op: 'window_agg',
      id: ck.allocId(`${prefix}/window`),
      inputs: [input.op.id],
      schema: [...keySchema, ...windowColumns.map((w) => ({ name: w, type: window.columnType, metadataFrom: null })), ...aggSchema],
      changelog: emit === 'changes' ? 'upsert' : 'append',
      // A session's window_start alone is not unique over time (a session can open at the start
      // of one that has closed); its end is (the later one ends later). See session-agg.ts.
      upsertKey: emit === 'changes' ? [...keys.map((k) => k.name), 'window_start', ...(window.ir.kind === 'session' ? ['window_end'] : [])] : null,
      stateBound: { kind: 'window', retainMs: window.spanMs + owner.allowedLatenessMs },
      timeColumn: windowColumns.includes('window_time') ? 'window_time' : null,
      window: window.ir,
      windowTimeColumn: window.timeColumn,
      groupKeys,
      aggregates,
      windowColumns,
      emit,
      allowedLatenessMs: owner.allowedLatenessMs,
      late: owner.late,
      paneMs: null,
      span: q.span,
    });
    stream = { ...input, op };
  } else {
    if (!input.bounded) {
      if (owner.kind === 'sink') {
        ck.bag.report('aggregate-needs-view', q.span, {});
        return null;
      }
      const missing = [owner.emit !== 'changes' ? 'EMIT CHANGES' : null, owner.stateTtlMs === null ? "a state_ttl (WITH (state_ttl = '1 d'))" : null].filter(Boolean);
      if (missing.length > 0) {
        ck.bag.report('unbounded-aggregation', q.span, { missing: missing.join(' and ') });
        return null;
      }
    }
    const stateBound: StateBound =
      owner.stateTtlMs !== null
        ? { kind: 'ttl', ttlMs: owner.stateTtlMs }
        : { kind: 'unbounded', reason: 'non-windowed aggregation without state_ttl (its input is bounded)' };
    const op = ck.push({
      op: 'group_agg',
      id: ck.allocId(`${prefix}/aggregate`),
      inputs: [input.op.id],
      schema: [...keySchema, ...aggSchema],
      changelog: 'upsert',
      upsertKey: keys.map((k) => k.name),
      stateBound,
      timeColumn: null,
      groupKeys,
      aggregates,
      stateTtlMs: owner.stateTtlMs,
      span: q.span,
    });
    stream = { ...input, op };
  }
  if (having) stream = ck.addFilter(prefix, 'having', stream, having, q.having!.span);
  return ck.addProject(prefix, stream, exprs, q.span);
}

function spanOfAll(es: Expr[]): Span {
  const first = es[0]!.span;
  const last = es[es.length - 1]!.span;
  return { file: first.file, start: first.start, end: last.end };
}
