// The SELECT list: output names (alias, column name, or Flink's EXPR$<i>, made unique the way
// Calcite does) and the typed expressions of a non-aggregating SELECT.
import type { SelectQuery } from '../syntax/ast.ts';
import type { IrNamedExpr } from '../plan/ir.ts';
import { DiagnosticBag } from '../diagnostics/bag.ts';
import type { Scope } from './scope.ts';
import { uniquify } from './scope.ts';
import { typeExpr, type ExprEnv } from './expr.ts';

/** Output names of the SELECT list, stars expanded, made unique. */
export function selectNames(q: SelectQuery, scope: Scope): string[] {
  const names: string[] = [];
  q.items.forEach((it, i) => {
    if (it.kind === 'star') {
      for (const c of scope.star(it.qualifier, new DiagnosticBag()) ?? []) names.push(c.name);
    } else if (it.alias) names.push(it.alias.name);
    else if (it.expr.kind === 'column') {
      const r = scope.resolve(it.expr.qualifier, it.expr.name, it.expr.span, new DiagnosticBag());
      names.push(r.ok ? r.column.name : it.expr.name.name);
    } else names.push(`EXPR$${i}`);
  });
  return uniquify(names);
}

/** Types a SELECT list without aggregation into named expressions; null after reporting errors. */
export function typeSelectList(q: SelectQuery, scope: Scope, env: ExprEnv): IrNamedExpr[] | null {
  const names = selectNames(q, scope);
  const out: IrNamedExpr[] = [];
  let ok = true;
  for (const it of q.items) {
    if (it.kind === 'star') {
      const cols = scope.star(it.qualifier, env.bag);
      if (!cols) {
        ok = false;
        continue;
      }
      for (const c of cols) {
        if (c.window) continue;
        out.push({ name: '', expr: { kind: 'col', input: c.input, name: c.irName, type: c.type } });
      }
      continue;
    }
    const x = typeExpr(it.expr, env);
    if (!x || !storable(x, it.span, env)) ok = false;
    else out.push({ name: '', expr: x });
  }
  if (!ok || out.length !== names.length) return ok ? null : null;
  out.forEach((e, i) => (e.name = names[i]!));
  return out;
}

/** Output columns need a type sinks can hold: not a bare NULL, not an INTERVAL. */
export function storable(x: IrNamedExpr['expr'], span: import('../diagnostics/span.ts').Span, env: ExprEnv): boolean {
  if (x.type.kind !== 'null' && x.type.kind !== 'interval') return true;
  env.bag.report('untyped-output', span, { type: x.type.kind === 'null' ? 'NULL' : 'INTERVAL' });
  return false;
}
