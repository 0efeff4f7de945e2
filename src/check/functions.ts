// The scalar function table of the language (LANGUAGE.md "Expressions"): arity, argument
// types and result type of each, mapped to canonical IrFn names.
import type { IrExpr } from '../plan/ir.ts';
import { T, isNumeric, withNullable } from '../types/sql-type.ts';
import { suggest } from '../util/suggest.ts';
import { call, expectString, fmt, typeExpr, unifyAll, type CallExpr, type ExprEnv } from './expr.ts';
import { coerce } from './literals.ts';
import { comparable } from './type-rules.ts';

export const AGGREGATE_NAMES = ['count', 'sum', 'min', 'max', 'avg', 'approx_count_distinct', 'first_value', 'last_value'] as const;

export const SCALAR_NAMES = [
  'lower', 'upper', 'concat', 'substring', 'substr', 'trim', 'ltrim', 'rtrim', 'char_length', 'character_length',
  'coalesce', 'nullif', 'to_timestamp_ltz', 'json_value',
] as const;

export function isAggregateName(name: string): boolean {
  return (AGGREGATE_NAMES as readonly string[]).includes(name.toLowerCase());
}

const anyNullable = (xs: IrExpr[]): boolean => xs.some((x) => x.type.nullable);

export function typeScalarCall(e: CallExpr, env: ExprEnv): IrExpr | null {
  const name = e.name.name.toLowerCase();
  const bag = env.bag;
  if (!(SCALAR_NAMES as readonly string[]).includes(name)) {
    bag.report('unknown-function', e.name.span, { name, suggestion: suggest(name, [...SCALAR_NAMES, ...AGGREGATE_NAMES]) });
    return null;
  }
  if (e.star || e.distinct) {
    bag.report('invalid-aggregate-call', e.span, { name, detail: `${e.star ? '*' : 'DISTINCT'} is only valid in COUNT` });
    return null;
  }
  const arity = (min: number, max: number): boolean => {
    if (e.args.length >= min && e.args.length <= max) return true;
    const expected = min === max ? String(min) : max === Infinity ? `at least ${min}` : `${min} to ${max}`;
    bag.report('wrong-arity', e.span, { name, expected, actual: e.args.length });
    return false;
  };
  const args = e.args.map((a) => typeExpr(a, env));
  if (args.some((a) => !a)) return null;
  const xs = args as IrExpr[];
  const strings = (): boolean => xs.every((x, i) => expectString(x, e.args[i]!.span, `argument ${i + 1} of ${name.toUpperCase()}`, env));
  const integer = (i: number): boolean => {
    const k = xs[i]!.type.kind;
    if (k === 'int' || k === 'bigint' || k === 'null') return true;
    bag.report('expected-type', e.args[i]!.span, { what: `argument ${i + 1} of ${name.toUpperCase()}`, expected: 'INT', actual: fmt(xs[i]!.type) });
    return false;
  };
  switch (name) {
    case 'lower':
    case 'upper':
    case 'ltrim':
    case 'rtrim':
    case 'trim':
      if (!arity(1, 1) || !strings()) return null;
      return call(name, xs, T.string(anyNullable(xs)));
    case 'char_length':
    case 'character_length':
      if (!arity(1, 1) || !strings()) return null;
      return call('char_length', xs, T.int(anyNullable(xs)));
    case 'concat':
      if (!arity(1, Infinity) || !strings()) return null;
      return call('concat', xs, T.string(anyNullable(xs)));
    case 'substring':
    case 'substr':
      if (!arity(2, 3)) return null;
      if (!expectString(xs[0]!, e.args[0]!.span, `argument 1 of ${name.toUpperCase()}`, env) || !integer(1) || (xs.length === 3 && !integer(2))) return null;
      return call('substring', xs, T.string(anyNullable(xs)));
    case 'coalesce': {
      if (!arity(1, Infinity)) return null;
      const t = unifyAll(xs, 'COALESCE', e.span, env);
      if (!t) return null;
      // Non-null as soon as one argument can't be null.
      const type = withNullable(t, xs.every((x) => x.type.nullable));
      return call('coalesce', xs.map((x) => coerce(x, type)), type);
    }
    case 'nullif': {
      if (!arity(2, 2)) return null;
      if (!comparable(xs[0]!.type, xs[1]!.type, false)) {
        bag.report('incompatible-types', e.span, { what: 'NULLIF', types: xs.map((x) => fmt(x.type)).join(', ') });
        return null;
      }
      return call('nullif', xs, withNullable(xs[0]!.type, true));
    }
    case 'to_timestamp_ltz': {
      if (!arity(1, 2)) return null;
      if (!isNumeric(xs[0]!.type) && xs[0]!.type.kind !== 'null') {
        bag.report('expected-type', e.args[0]!.span, { what: 'argument 1 of TO_TIMESTAMP_LTZ', expected: 'a number of epoch seconds or milliseconds', actual: fmt(xs[0]!.type) });
        return null;
      }
      let precision = 3;
      if (xs.length === 2) {
        const p = xs[1]!;
        if (p.kind !== 'lit' || (p.value !== 0 && p.value !== 3)) {
          bag.report('expected-type', e.args[1]!.span, { what: 'the precision of TO_TIMESTAMP_LTZ', expected: 'the literal 0 (seconds) or 3 (milliseconds)', actual: fmt(p.type) });
          return null;
        }
        precision = p.value as number;
      }
      return call('to_timestamp_ltz', [xs[0]!, { kind: 'lit', value: precision, type: T.int(false) }], T.timestampLtz(precision, xs[0]!.type.nullable));
    }
    case 'json_value':
      if (!arity(2, 2) || !strings()) return null;
      // A missing path yields NULL, so the result is nullable whatever the input.
      return call('json_value', xs, T.string(true));
    default:
      bag.report('internal-error', e.span, { detail: `function ${name} listed but not typed` });
      return null;
  }
}
