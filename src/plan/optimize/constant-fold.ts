// Optimizer pass: constant folding. Evaluates literal-only expressions (exact DECIMAL via
// ./fold-values.ts), simplifies boolean identities (`x AND TRUE` → x, `x OR TRUE` → TRUE),
// CASE/COALESCE with literal branches, NULL through strict functions (`x = NULL` is NULL), and removes filters whose condition folds to TRUE.
// Every replacement keeps the original expression's type, so no output schema changes.
import type { IrExpr, IrFn, IrOperator, PlanDoc } from '../ir.ts';
import { assertNever } from '../../util/assert-never.ts';
import { mapExpr, retype } from './expr.ts';
import { evalCall, evalCast } from './fold-values.ts';
import { rewireAll } from './plan-edit.ts';

type Lit = Extract<IrExpr, { kind: 'lit' }>;

/** Functions whose result is NULL as soon as one argument is NULL. */
const STRICT = new Set<IrFn>([
  'add', 'sub', 'mul', 'div', 'mod', 'neg', 'eq', 'ne', 'lt', 'le', 'gt', 'ge', 'not', 'like', 'not_like',
  'concat', 'lower', 'upper', 'substring', 'trim', 'ltrim', 'rtrim', 'char_length', 'floor_to', 'ceil_to', 'extract', 'timestampadd',
]);

const isLit = (e: IrExpr): e is Lit => e.kind === 'lit';
const isBoolLit = (e: IrExpr, v: boolean | null): boolean => e.kind === 'lit' && e.value === v;

function lit(value: Lit['value'], like: IrExpr): IrExpr {
  return { kind: 'lit', value, type: like.type };
}

/** One folding step on a node whose children are already folded. */
function foldNode(e: IrExpr): IrExpr {
  switch (e.kind) {
    case 'col':
    case 'lit':
      return e;
    case 'cast': {
      if (!isLit(e.operand)) return e;
      const v = evalCast(e.operand, e.type);
      return v === undefined ? e : lit(v, e);
    }
    case 'case': {
      const whens: typeof e.whens = [];
      for (const w of e.whens) {
        if (isBoolLit(w.when, false) || isBoolLit(w.when, null)) continue;
        if (isBoolLit(w.when, true) && whens.length === 0) return retype(w.then, e.type);
        whens.push(w);
        if (isBoolLit(w.when, true)) return { ...e, whens, else: null };
      }
      if (whens.length === 0) return e.else ? retype(e.else, e.type) : lit(null, e);
      return { ...e, whens };
    }
    case 'call':
      return foldCall(e);
    default:
      return assertNever(e);
  }
}

function foldCall(e: Extract<IrExpr, { kind: 'call' }>): IrExpr {
  if (e.fn === 'and' || e.fn === 'or') {
    // FALSE absorbs AND (even NULL AND FALSE is FALSE); TRUE absorbs OR. The neutral element drops.
    const absorbing = e.fn === 'and' ? false : true;
    if (e.args.some((a) => isBoolLit(a, absorbing))) return lit(absorbing, e);
    const rest = e.args.filter((a) => !isBoolLit(a, !absorbing));
    if (rest.length === 0) return lit(!absorbing, e);
    if (rest.length === 1) return retype(rest[0]!, e.type);
    if (rest.every((a) => isBoolLit(a, null))) return lit(null, e);
    return rest.length === e.args.length ? e : { ...e, args: rest };
  }
  if (e.fn === 'coalesce') {
    const last = e.args.length - 1;
    const rest = e.args.filter((a, i) => i === last || !(a.kind === 'lit' && a.value === null));
    const firstNonNull = rest.findIndex((a) => a.kind === 'lit' && a.value !== null);
    const kept = firstNonNull >= 0 ? rest.slice(0, firstNonNull + 1) : rest;
    if (kept.length === 1) return retype(kept[0]!, e.type);
    return kept.length === e.args.length ? e : { ...e, args: kept };
  }
  // NULL in any argument of a strict function makes the result NULL whatever the other arguments.
  if (STRICT.has(e.fn) && e.args.some((a) => a.kind === 'lit' && a.value === null)) return lit(null, e);
  if (!e.args.every(isLit)) return e;
  const v = evalCall(e.fn, e.args, e.type);
  return v === undefined ? e : lit(v, e);
}

export function foldExpr(e: IrExpr): IrExpr {
  return mapExpr(e, foldNode);
}

function foldOperator(o: IrOperator): IrOperator {
  switch (o.op) {
    case 'scan':
    case 'union':
      return o;
    case 'filter':
      return { ...o, predicate: foldExpr(o.predicate) };
    case 'project':
      return { ...o, exprs: o.exprs.map((x) => ({ ...x, expr: foldExpr(x.expr) })) };
    case 'window_agg':
    case 'group_agg':
      return {
        ...o,
        groupKeys: o.groupKeys.map((g) => ({ ...g, expr: foldExpr(g.expr) })),
        aggregates: o.aggregates.map((a) => ({ ...a, arg: a.arg ? foldExpr(a.arg) : null })),
      };
    case 'interval_join': {
      const residual = o.residual ? foldExpr(o.residual) : null;
      return {
        ...o,
        leftKeys: o.leftKeys.map(foldExpr),
        rightKeys: o.rightKeys.map(foldExpr),
        residual: residual && isBoolLit(residual, true) ? null : residual,
      };
    }
    case 'temporal_join': {
      const residual = o.residual ? foldExpr(o.residual) : null;
      return { ...o, leftKeys: o.leftKeys.map(foldExpr), residual: residual && isBoolLit(residual, true) ? null : residual };
    }
    default:
      return assertNever(o);
  }
}

/** The pass: folds every expression, then drops filters that let every row through. */
export function foldConstants(plan: PlanDoc): PlanDoc {
  const out: PlanDoc = { ...plan, operators: plan.operators.map(foldOperator) };
  const dropped = new Map<string, string>();
  for (const o of out.operators) if (o.op === 'filter' && isBoolLit(o.predicate, true)) dropped.set(o.id, o.inputs[0]!);
  if (dropped.size === 0) return out;
  // A dropped filter may sit on another: follow the chain to the first kept operator. All in
  // one rewire, not one plan copy per filter (quadratic in the number of views).
  const target = new Map<string, string>();
  for (const id of dropped.keys()) {
    let to = dropped.get(id)!;
    while (dropped.has(to)) to = dropped.get(to)!;
    target.set(id, to);
  }
  const rewired = rewireAll(out, target);
  return { ...rewired, operators: rewired.operators.filter((x) => !dropped.has(x.id)) };
}
