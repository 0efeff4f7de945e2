// Typing of expressions: every AST expression becomes a typed IrExpr with canonical IrFn
// names, or null after reporting why (children's errors are not repeated by parents).
import type { Expr } from '../syntax/ast.ts';
import type { IrExpr, IrFn } from '../plan/ir.ts';
import type { DiagnosticBag } from '../diagnostics/bag.ts';
import { T, formatSqlType, isNumeric, withNullable, type SqlType } from '../types/sql-type.ts';
import { assertNever } from '../util/assert-never.ts';
import type { Scope } from './scope.ts';
import { arithmeticType, comparable, castable, unify, type ArithOp } from './type-rules.ts';
import { coerce, numberLiteral, parseDateLiteral, parseTimestampLiteral } from './literals.ts';
import { isCalendarInterval } from './units.ts';
import { typeScalarCall, isAggregateName } from './functions.ts';

export type CallExpr = Extract<Expr, { kind: 'call' }>;

export interface ExprEnv {
  scope: Scope;
  bag: DiagnosticBag;
  /** The clause being typed, for messages: `WHERE`, `GROUP BY`, ... */
  clause: string;
  /** 'allow', or the reason window columns can't be used here ("in WHERE"). */
  windowColumns: 'allow' | string;
  /** Types an aggregate call; null where aggregates are not allowed. */
  aggregate: ((call: CallExpr, env: ExprEnv) => IrExpr | null) | null;
  /** Called on every node first; a non-undefined answer replaces normal typing (grouped expressions). */
  intercept?: (e: Expr, env: ExprEnv) => IrExpr | null | undefined;
}

const ARITH: Record<string, ArithOp> = { '+': 'add', '-': 'sub', '*': 'mul', '/': 'div', '%': 'mod' };
const COMPARE: Record<string, IrFn> = { '=': 'eq', '<>': 'ne', '<': 'lt', '<=': 'le', '>': 'gt', '>=': 'ge' };

export const call = (fn: IrFn, args: IrExpr[], type: SqlType): IrExpr => ({ kind: 'call', fn, args, type });
const anyNullable = (...es: IrExpr[]): boolean => es.some((e) => e.type.nullable);
export const fmt = (t: SqlType): string => (t.kind === 'null' ? 'NULL' : formatSqlType(t, false));

export function typeExpr(e: Expr, env: ExprEnv): IrExpr | null {
  if (env.intercept) {
    const r = env.intercept(e, env);
    if (r !== undefined) return r;
  }
  const bag = env.bag;
  switch (e.kind) {
    case 'column': {
      const r = env.scope.resolve(e.qualifier, e.name, e.span, bag);
      if (!r.ok) return null;
      if (r.column.window && env.windowColumns !== 'allow') {
        bag.report('window-column-unavailable', e.span, { name: r.column.name, reason: env.windowColumns });
        return null;
      }
      return { kind: 'col', input: r.column.input, name: r.column.irName, type: r.column.type };
    }
    case 'number': {
      const lit = numberLiteral(e.text);
      if (!lit) bag.report('invalid-literal', e.span, { text: e.text, type: 'numeric' });
      return lit;
    }
    case 'string':
      return { kind: 'lit', value: e.value, type: T.string(false) };
    case 'boolean':
      return { kind: 'lit', value: e.value, type: T.boolean(false) };
    case 'null':
      return { kind: 'lit', value: null, type: T.null() };
    case 'interval':
      if (isCalendarInterval(e)) {
        bag.report('calendar-interval', e.span, { text: e.text + (e.unit ? ` ${e.unit.toUpperCase()}` : '') });
        return null;
      }
      return { kind: 'lit', value: e.ms, type: T.interval(false) };
    case 'typed_literal': {
      if (e.type === 'date') {
        const days = parseDateLiteral(e.value);
        if (days === null) bag.report('invalid-literal', e.span, { text: e.value, type: 'DATE' });
        return days === null ? null : { kind: 'lit', value: days, type: T.date(false) };
      }
      const ts = parseTimestampLiteral(e.value);
      if (!ts) bag.report('invalid-literal', e.span, { text: e.value, type: 'TIMESTAMP' });
      return ts ? { kind: 'lit', value: ts.ms, type: T.timestamp(ts.precision, false) } : null;
    }
    case 'binary':
      return typeBinary(e, env);
    case 'unary': {
      if (e.op === '-' && e.operand.kind === 'number') {
        const lit = typeExpr(e.operand, env);
        if (lit?.kind === 'lit' && lit.value !== null && typeof lit.value !== 'boolean') {
          const v = lit.value;
          return { kind: 'lit', value: typeof v === 'number' ? -v : `-${v}`, type: lit.type };
        }
        return lit;
      }
      const x = typeExpr(e.operand, env);
      if (!x) return null;
      if (e.op === '-') {
        if (!isNumeric(x.type) && x.type.kind !== 'interval' && x.type.kind !== 'null') {
          bag.report('expected-type', e.operand.span, { what: "the operand of unary '-'", expected: 'numeric', actual: fmt(x.type) });
          return null;
        }
        return call('neg', [x], x.type);
      }
      if (!expectBoolean(x, e.operand.span, 'the operand of NOT', env)) return null;
      return call('not', [x], T.boolean(x.type.nullable));
    }
    case 'is_null': {
      const x = typeExpr(e.operand, env);
      return x && call(e.negated ? 'is_not_null' : 'is_null', [x], T.boolean(false));
    }
    case 'in': {
      const x = typeExpr(e.operand, env);
      const items = e.list.map((i) => typeExpr(i, env));
      if (!x || items.some((i) => !i)) return null;
      const list = items as IrExpr[];
      let common: SqlType | null = x.type;
      for (const it of list) common = common && unify(common, it.type);
      if (!common || list.some((it) => !comparable(x.type, it.type, false))) {
        bag.report('incompatible-types', e.span, { what: 'IN', types: [x, ...list].map((i) => fmt(i.type)).join(', ') });
        return null;
      }
      const args = [x, ...list].map((a) => coerceComparable(a, common!));
      return call(e.negated ? 'not_in' : 'in', args, T.boolean(anyNullable(x, ...list)));
    }
    case 'between': {
      const x = typeExpr(e.operand, env);
      const lo = typeExpr(e.low, env);
      const hi = typeExpr(e.high, env);
      if (!x || !lo || !hi) return null;
      const ge = compare('>=', x, lo, e.span, env);
      const le = compare('<=', x, hi, e.span, env);
      if (!ge || !le) return null;
      const both = call('and', [ge, le], T.boolean(anyNullable(x, lo, hi)));
      return e.negated ? call('not', [both], both.type) : both;
    }
    case 'like': {
      const x = typeExpr(e.operand, env);
      const p = typeExpr(e.pattern, env);
      if (!x || !p) return null;
      if (!expectString(x, e.operand.span, 'the operand of LIKE', env) || !expectString(p, e.pattern.span, 'a LIKE pattern', env)) return null;
      return call(e.negated ? 'not_like' : 'like', [x, p], T.boolean(anyNullable(x, p)));
    }
    case 'case':
      return typeCase(e, env);
    case 'cast': {
      const x = typeExpr(e.operand, env);
      if (!x) return null;
      if (!castable(x.type, e.type)) {
        bag.report('invalid-cast', e.span, { from: fmt(x.type), to: fmt(e.type) });
        return null;
      }
      // The target type as parsed is nullable by default; the result is null exactly when the operand is.
      return { kind: 'cast', operand: x, type: withNullable(e.type, x.type.nullable) };
    }
    case 'call':
      if (isAggregateName(e.name.name)) {
        if (!env.aggregate) {
          bag.report('aggregate-not-allowed', e.span, { clause: env.clause });
          return null;
        }
        return env.aggregate(e, env);
      }
      return typeScalarCall(e, env);
    case 'extract': {
      const x = typeExpr(e.operand, env);
      if (!x || !expectTemporal(x, e.operand.span, 'EXTRACT', env)) return null;
      return { kind: 'call', fn: 'extract', args: [x], type: T.bigint(x.type.nullable), unit: e.unit };
    }
    case 'floor_to': {
      const x = typeExpr(e.operand, env);
      if (!x || !expectTemporal(x, e.operand.span, e.ceil ? 'CEIL ... TO' : 'FLOOR ... TO', env)) return null;
      return { kind: 'call', fn: e.ceil ? 'ceil_to' : 'floor_to', args: [x], type: x.type, unit: e.unit };
    }
    case 'timestampadd': {
      const n = typeExpr(e.amount, env);
      const x = typeExpr(e.operand, env);
      if (!n || !x) return null;
      if (n.type.kind !== 'int' && n.type.kind !== 'bigint' && n.type.kind !== 'null') {
        bag.report('expected-type', e.amount.span, { what: 'the amount of TIMESTAMPADD', expected: 'INT or BIGINT', actual: fmt(n.type) });
        return null;
      }
      if (!expectTemporal(x, e.operand.span, 'TIMESTAMPADD', env)) return null;
      return { kind: 'call', fn: 'timestampadd', args: [n, x], type: withNullable(x.type, anyNullable(n, x)), unit: e.unit };
    }
    case 'trim': {
      const x = typeExpr(e.operand, env);
      const c = e.chars ? typeExpr(e.chars, env) : null;
      if (!x || (e.chars && !c)) return null;
      if (!expectString(x, e.operand.span, 'the operand of TRIM', env)) return null;
      if (c && !expectString(c, e.chars!.span, 'the characters of TRIM', env)) return null;
      const fn: IrFn = e.side === 'both' ? 'trim' : e.side === 'leading' ? 'ltrim' : 'rtrim';
      return call(fn, c ? [x, c] : [x], T.string(anyNullable(x, ...(c ? [c] : []))));
    }
    default:
      return assertNever(e);
  }
}

function typeBinary(e: Extract<Expr, { kind: 'binary' }>, env: ExprEnv): IrExpr | null {
  const l = typeExpr(e.left, env);
  const r = typeExpr(e.right, env);
  if (!l || !r) return null;
  const n = anyNullable(l, r);
  const arith = ARITH[e.op];
  if (arith) {
    if ((isNumeric(l.type) || l.type.kind === 'null') && (isNumeric(r.type) || r.type.kind === 'null')) {
      const lt = l.type.kind === 'null' ? r.type : l.type;
      const rt = r.type.kind === 'null' ? l.type : r.type;
      const t = lt.kind === 'null' ? T.int() : arithmeticType(arith, lt, rt)!;
      const operand = (x: IrExpr): IrExpr =>
        t.kind === 'decimal' ? coerce(x, x.type.kind === 'decimal' ? x.type : x.type.kind === 'bigint' ? T.decimal(19, 0) : x.type.kind === 'null' ? t : T.decimal(10, 0)) : coerce(x, t);
      return call(arith, [operand(l), operand(r)], withNullable(t, n));
    }
    const temporal = (t: SqlType): boolean => t.kind === 'timestamp' || t.kind === 'date';
    if ((arith === 'add' || arith === 'sub') && temporal(l.type) && r.type.kind === 'interval') return call(arith, [l, r], withNullable(l.type, n));
    if (arith === 'add' && l.type.kind === 'interval' && temporal(r.type)) return call('add', [r, l], withNullable(r.type, n));
    if ((arith === 'add' || arith === 'sub') && l.type.kind === 'interval' && r.type.kind === 'interval') return call(arith, [l, r], T.interval(n));
    env.bag.report('type-mismatch', e.span, { op: e.op, left: fmt(l.type), right: fmt(r.type) });
    return null;
  }
  if (e.op === 'and' || e.op === 'or') {
    if (!expectBoolean(l, e.left.span, `the left side of ${e.op.toUpperCase()}`, env)) return null;
    if (!expectBoolean(r, e.right.span, `the right side of ${e.op.toUpperCase()}`, env)) return null;
    return call(e.op, [l, r], T.boolean(n));
  }
  if (e.op === '||') {
    if (!isStringy(l.type) || !isStringy(r.type)) {
      env.bag.report('type-mismatch', e.span, { op: '||', left: fmt(l.type), right: fmt(r.type) });
      return null;
    }
    return call('concat', [l, r], T.string(n));
  }
  return compare(e.op, l, r, e.span, env);
}

/** A comparison with both operands converted to their common type. */
export function compare(op: string, l: IrExpr, r: IrExpr, span: import('../diagnostics/span.ts').Span, env: ExprEnv): IrExpr | null {
  const fn = COMPARE[op]!;
  const ordering = op !== '=' && op !== '<>';
  if (!comparable(l.type, r.type, ordering)) {
    env.bag.report('type-mismatch', span, { op, left: fmt(l.type), right: fmt(r.type) });
    return null;
  }
  const common = unify(l.type, r.type);
  const args = common ? [coerceComparable(l, common), coerceComparable(r, common)] : [l, r];
  return call(fn, args, T.boolean(anyNullable(l, r)));
}

/** Converts numbers to their common type and dates to timestamps; other types compare as they are. */
function coerceComparable(e: IrExpr, common: SqlType): IrExpr {
  if (e.type.kind === 'null') return coerce(e, common);
  if (isNumeric(e.type) && isNumeric(common)) return coerce(e, common);
  if (e.type.kind === 'date' && common.kind === 'timestamp') return coerce(e, common);
  return e;
}

function typeCase(e: Extract<Expr, { kind: 'case' }>, env: ExprEnv): IrExpr | null {
  const operand = e.operand ? typeExpr(e.operand, env) : null;
  if (e.operand && !operand) return null;
  const whens: { when: IrExpr; then: IrExpr }[] = [];
  let ok = true;
  for (const w of e.whens) {
    const wt = typeExpr(w.when, env);
    const tt = typeExpr(w.then, env);
    if (!wt || !tt) {
      ok = false;
      continue;
    }
    let cond: IrExpr | null = wt;
    if (operand) cond = compare('=', operand, wt, w.when.span, env);
    else if (!expectBoolean(wt, w.when.span, 'a WHEN condition', env)) cond = null;
    if (!cond) ok = false;
    else whens.push({ when: cond, then: tt });
  }
  const els = e.else ? typeExpr(e.else, env) : null;
  if (!ok || (e.else && !els)) return null;
  const branches = [...whens.map((w) => w.then), ...(els ? [els] : [])];
  const t = unifyAll(branches, 'CASE', e.span, env);
  if (!t) return null;
  const type = withNullable(t, !els || branches.some((b) => b.type.nullable));
  return {
    kind: 'case',
    whens: whens.map((w) => ({ when: w.when, then: coerce(w.then, type) })),
    else: els ? coerce(els, type) : null,
    type,
  };
}

/** The common type of several values, reporting `incompatible-types` when there is none. */
export function unifyAll(xs: IrExpr[], what: string, span: import('../diagnostics/span.ts').Span, env: ExprEnv): SqlType | null {
  let t: SqlType | null = xs[0]?.type ?? T.null();
  for (const x of xs.slice(1)) t = t && unify(t, x.type);
  if (!t) {
    env.bag.report('incompatible-types', span, { what, types: xs.map((x) => fmt(x.type)).join(', ') });
    return null;
  }
  // An all-NULL CASE has no type of its own; Flink types it as nullable STRING-less NULL, we pick STRING.
  return t.kind === 'null' ? T.string(true) : t;
}

const isStringy = (t: SqlType): boolean => t.kind === 'string' || t.kind === 'null';

export function expectBoolean(x: IrExpr, span: import('../diagnostics/span.ts').Span, what: string, env: ExprEnv): boolean {
  if (x.type.kind === 'boolean' || x.type.kind === 'null') return true;
  env.bag.report('expected-type', span, { what, expected: 'BOOLEAN', actual: fmt(x.type) });
  return false;
}

export function expectString(x: IrExpr, span: import('../diagnostics/span.ts').Span, what: string, env: ExprEnv): boolean {
  if (isStringy(x.type)) return true;
  env.bag.report('expected-type', span, { what, expected: 'STRING', actual: fmt(x.type) });
  return false;
}

function expectTemporal(x: IrExpr, span: import('../diagnostics/span.ts').Span, what: string, env: ExprEnv): boolean {
  if (x.type.kind === 'timestamp' || x.type.kind === 'date' || x.type.kind === 'null') return true;
  env.bag.report('expected-type', span, { what: `the operand of ${what}`, expected: 'TIMESTAMP or DATE', actual: fmt(x.type) });
  return false;
}

/** Whether the AST expression contains an aggregate call (not looking into nothing else). */
export function containsAggregate(e: Expr): boolean {
  let found = false;
  walkExpr(e, (x) => {
    if (x.kind === 'call' && isAggregateName(x.name.name)) found = true;
  });
  return found;
}

export function walkExpr(e: Expr, f: (e: Expr) => void): void {
  f(e);
  const kids: Expr[] = [];
  switch (e.kind) {
    case 'column':
    case 'number':
    case 'string':
    case 'boolean':
    case 'null':
    case 'interval':
    case 'typed_literal':
      break;
    case 'binary':
      kids.push(e.left, e.right);
      break;
    case 'unary':
    case 'is_null':
    case 'cast':
    case 'extract':
    case 'floor_to':
      kids.push(e.operand);
      break;
    case 'in':
      kids.push(e.operand, ...e.list);
      break;
    case 'between':
      kids.push(e.operand, e.low, e.high);
      break;
    case 'like':
      kids.push(e.operand, e.pattern);
      break;
    case 'case':
      if (e.operand) kids.push(e.operand);
      for (const w of e.whens) kids.push(w.when, w.then);
      if (e.else) kids.push(e.else);
      break;
    case 'call':
      kids.push(...e.args);
      break;
    case 'timestampadd':
      kids.push(e.amount, e.operand);
      break;
    case 'trim':
      if (e.chars) kids.push(e.chars);
      kids.push(e.operand);
      break;
    default:
      assertNever(e);
  }
  for (const k of kids) walkExpr(k, f);
}
