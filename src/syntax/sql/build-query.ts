// CST query rules → ast.Query: SELECT, FROM items (tables, window TVFs in short and long form,
// joins, subqueries) and UNION ALL.
import type { CstNode } from 'chevrotain';
import type { Expr, FromItem, Ident, QualifiedName, Query, SelectItem, SelectQuery, TableRef, WindowFn, WindowTvf } from '../ast.ts';
import { joinSpans } from '../../diagnostics/span.ts';
import { type Children, need, node, nodes, optIdentAt, tok } from './cst.ts';
import type { ExprBuilder } from './build-expr.ts';

const visitExpr = (b: ExprBuilder, n: CstNode | undefined): Expr => b.visit(need(n)) as Expr;

export function buildQuery(b: ExprBuilder, n: CstNode): Query {
  const selects = nodes(n.children as Children, 'selects').map((s) => b.visit(s) as SelectQuery);
  if (selects.length === 1) return selects[0]!;
  return { kind: 'union_all', inputs: selects, span: b.spans.node(n) };
}

export function buildSelect(b: ExprBuilder, n: CstNode): SelectQuery {
  const c = n.children as Children;
  const where = node(c, 'where');
  const having = node(c, 'having');
  return {
    kind: 'select',
    items: nodes(c, 'selectItem').map((i) => b.visit(i) as SelectItem),
    from: b.visit(need(node(c, 'fromClause'))) as FromItem,
    where: where ? visitExpr(b, where) : null,
    groupBy: nodes(c, 'groupBy').map((g) => visitExpr(b, g)),
    having: having ? visitExpr(b, having) : null,
    span: b.spans.node(n),
  };
}

export function buildSelectItem(b: ExprBuilder, n: CstNode): SelectItem {
  const c = n.children as Children;
  const span = b.spans.node(n);
  const e = node(c, 'expr');
  if (e) {
    return { kind: 'expr', expr: visitExpr(b, e), alias: optIdentAt(c, 'alias', b.spans), span };
  }
  return { kind: 'star', qualifier: optIdentAt(c, 'qualifier', b.spans), span };
}

export function buildFromClause(b: ExprBuilder, c: Children): FromItem {
  let acc = b.visit(need(node(c, 'fromPrimary'))) as FromItem;
  for (const j of nodes(c, 'joinClause')) {
    const jc = j.children as Children;
    const right = b.visit(need(node(jc, 'fromPrimary'))) as FromItem;
    const on = visitExpr(b, node(jc, 'expr'));
    acc = { kind: 'join', joinType: jc.LEFT ? 'left' : 'inner', left: acc, right, on, span: joinSpans(acc.span, on.span) };
  }
  return acc;
}

export function buildFromPrimary(b: ExprBuilder, n: CstNode): FromItem {
  const c = n.children as Children;
  const alias = optIdentAt(c, 'alias', b.spans);
  const span = b.spans.node(n);
  const win = node(c, 'windowCall') ?? node(c, 'longWindow');
  if (win) return { ...(b.visit(win) as WindowTvf), alias, span };
  const sub = node(c, 'subqueryRef');
  if (sub) return { kind: 'subquery', query: b.visit(need(node(sub.children as Children, 'query'))) as Query, alias, span };
  const t = b.visit(need(node(c, 'tableRef'))) as TableRef;
  return { ...t, alias, span };
}

export function buildTableRef(b: ExprBuilder, n: CstNode): TableRef {
  const c = n.children as Children;
  const asOf = node(c, 'asOf');
  return {
    kind: 'table',
    name: b.visit(need(node(c, 'qualifiedName'))) as QualifiedName,
    alias: null,
    asOf: asOf ? visitExpr(b, asOf) : null,
    span: b.spans.node(n),
  };
}

export function buildLongWindow(b: ExprBuilder, n: CstNode): WindowTvf {
  const inner = b.visit(need(node(n.children as Children, 'windowCall'))) as WindowTvf;
  return { ...inner, longForm: true, span: b.spans.node(n) };
}

type WinArg = { descriptor: Ident } | { expr: Expr };

const ARITY: Record<WindowFn, [number, number, string]> = {
  tumble: [1, 2, 'takes a size and an optional offset'],
  hop: [2, 2, 'takes a slide and a size'],
  cumulate: [2, 2, 'takes a step and a size'],
  session: [1, 1, 'takes a gap'],
};

/** Splits the argument list into time column, partition columns and durations. */
export function buildWindowCall(b: ExprBuilder, n: CstNode): WindowTvf {
  const c = n.children as Children;
  const span = b.spans.node(n);
  const fn = need(tok(c, 'fn')).tokenType.name.toLowerCase() as WindowFn;
  const nameQ = b.visit(need(node(c, 'input'))) as QualifiedName;
  const input: TableRef = { kind: 'table', name: nameQ, alias: null, asOf: null, span: nameQ.span };
  const first = node(c, 'partitionFirst');
  // `PARTITION BY (a, b)`: the list is closed, so every argument after it is the window's own.
  const listed = nodes(c, 'partitionList').map((e) => ({ expr: visitExpr(b, e) }) as WinArg);
  const all = [...(first ? [first] : []), ...nodes(c, 'args')].map((a) => b.visit(a) as WinArg);
  const bag = b.spans.ctx.diagnostics;
  const bad = (detail: string): void => {
    bag.report('syntax-bad-window-args', span, { fn: fn.toUpperCase(), detail });
  };
  let partition: WinArg[] = listed;
  let rest = all;
  if (listed.length > 0 && fn !== 'session') bad('only SESSION takes PARTITION BY');
  if (first) {
    if (fn !== 'session') bad('only SESSION takes PARTITION BY');
    const d = all.findIndex((a) => 'descriptor' in a);
    const split = d >= 0 ? d : Math.max(1, all.length - 2);
    partition = all.slice(0, split);
    rest = all.slice(split);
  }
  const timeArg = rest[0];
  let timeColumn: Ident | null = null;
  if (timeArg && 'descriptor' in timeArg) timeColumn = timeArg.descriptor;
  else if (timeArg && timeArg.expr.kind === 'column') timeColumn = timeArg.expr.name;
  if (!timeColumn) bad('the argument after the relation must be its time column');
  const args: Expr[] = [];
  for (const a of rest.slice(1)) {
    if ('expr' in a) args.push(a.expr);
    else bad('DESCRIPTOR(...) marks the time column only');
  }
  const [min, max, what] = ARITY[fn];
  if (args.length < min || args.length > max) bad(what);
  const partitionBy: Ident[] = [];
  for (const p of partition) {
    if ('expr' in p && p.expr.kind === 'column') partitionBy.push(p.expr.name);
    else bad('PARTITION BY takes column names');
  }
  return {
    kind: 'window',
    fn,
    input,
    timeColumn: timeColumn ?? { name: '?', quoted: false, span },
    args,
    partitionBy,
    alias: null,
    longForm: false,
    span,
  };
}

export function buildWindowArg(b: ExprBuilder, c: Children): WinArg {
  const d = optIdentAt(c, 'descriptor', b.spans);
  if (d) return { descriptor: d };
  return { expr: visitExpr(b, node(c, 'expr')) };
}
