// Emits the specialized AggFns of one aggregation operator: key extraction, an accumulator
// laid out as a flat array of slots, add/merge per aggregate, and the output row builder.
// Over a changelog input (`retract`) the accumulators can also take rows back: sums keep a
// count (NULL again at zero), MIN/MAX/COUNT DISTINCT keep value→count multisets, FIRST/
// LAST_VALUE keep their entries in arrival order; append inputs never pay for that state.
import type { IrAggFn, IrAggregate, IrNamedExpr, SqlType } from '../../../src/plan/ir.ts';
import { compileExpr, coerce, type Compiled, type ExprScope } from './expr.ts';
import { domainOf, scaleOf } from './js-types.ts';

export interface AggCodeInput {
  groupKeys: IrNamedExpr[];
  aggregates: IrAggregate[];
  /** Output window columns in order (empty for a non-windowed GROUP BY). */
  windowColumns: ('window_start' | 'window_end' | 'window_time')[];
  /** Makes a scope over the input row variable `r` with temporaries declared by the caller. */
  scope: (temps: string[]) => ExprScope;
  /** The input is a changelog: emit `retract` and retractable accumulators. */
  retract?: boolean;
}

/** Returns the source text of an object literal implementing AggFns. */
export function aggFnsCode(x: AggCodeInput, indent: string): string {
  const lines: string[] = [];
  const fn = (sig: string, body: string[], temps: string[]): void => {
    lines.push(`${sig} {`);
    if (temps.length) lines.push(`  let ${temps.join(', ')};`);
    for (const b of body) lines.push('  ' + b);
    lines.push('},');
  };

  // Keys
  {
    const temps: string[] = [];
    const sc = x.scope(temps);
    const ks = x.groupKeys.map((k) => compileExpr(k.expr, sc).code);
    const keyOf = ks.length === 0 ? `return 0;` : ks.length === 1 ? `return ${ks[0]};` : `return rt.compositeKey(${ks.join(', ')});`;
    fn('keyOf(r)', [keyOf], temps);
    const temps2: string[] = [];
    const sc2 = x.scope(temps2);
    fn('keyVals(r)', [`return [${x.groupKeys.map((k) => compileExpr(k.expr, sc2).code).join(', ')}];`], temps2);
  }

  // Accumulator slots
  const init: string[] = [];
  const add: string[] = [];
  const merge: string[] = [];
  const retract: string[] = [];
  const results: string[] = [];
  const R = x.retract === true;
  const temps: string[] = [];
  const sc = x.scope(temps);
  let slot = 0;
  for (const agg of x.aggregates) {
    const i = slot;
    const arg = agg.arg ? compileExpr(agg.arg, sc) : null;
    const t = (): string => {
      const n = `t${temps.length}`;
      temps.push(n);
      return n;
    };
    const code = AGGREGATES[agg.fn]({ agg, arg, i, R, sc, t });
    init.push(...code.init);
    add.push(code.add);
    if (code.merge !== undefined) merge.push(code.merge);
    if (code.retract !== undefined) retract.push(code.retract);
    results.push(code.result);
    slot += code.init.length;
  }
  fn('create()', [`return [${init.join(', ')}];`], []);
  fn('add(a, r, seq)', add, temps);
  if (R) {
    // Only windows merge accumulators, and windows never read a changelog.
    fn('merge(_a, _b)', [`throw new Error('retractable accumulators are not merged');`], []);
    fn('retract(a, r)', retract, temps);
  } else fn('merge(a, b)', merge, []);
  const win = x.windowColumns.map((c) => (c === 'window_start' ? 'ws' : c === 'window_end' ? 'we' : 'we - 1'));
  const keys = x.groupKeys.map((_k, i) => `k[${i}]`);
  fn('output(k, ws, we, a)', [`return [${[...keys, ...win, ...results].join(', ')}];`], []);
  return '{\n' + lines.map((l) => indent + '  ' + l).join('\n') + '\n' + indent + '}';
}

/** One aggregate of the accumulator: its slots start at `a[i]`; `arg` is its compiled argument. */
interface AggSlots {
  agg: IrAggregate;
  arg: Compiled | null;
  i: number;
  /** Over a changelog: retractable accumulators. */
  R: boolean;
  sc: ExprScope;
  /** Allocates a temporary of the add/retract functions. */
  t: () => string;
}

/**
 * An aggregate's code: the initial value of each slot it takes (one entry per slot), one line of
 * `add`, of `merge` (append inputs: windows merge panes) and of `retract` (changelog inputs), and
 * its result expression.
 */
interface AggCode {
  init: string[];
  add: string;
  merge?: string;
  retract?: string;
  result: string;
}

function countDistinct({ agg, arg, i, R, t }: AggSlots): AggCode {
  const v = t();
  // Exact over a changelog (a HyperLogLog cannot forget a value): value → count.
  if (R) return { init: ['new Map()'], add: `if ((${v} = ${arg!.code}) !== null) rt.msAdd(a[${i}], ${v});`, retract: `if ((${v} = ${arg!.code}) !== null) rt.msRemove(a[${i}], ${v});`, result: `a[${i}].size` };
  if (agg.fn === 'count_distinct') return { init: ['new Set()'], add: `if ((${v} = ${arg!.code}) !== null) a[${i}].add(${v});`, merge: `for (const v of b[${i}]) a[${i}].add(v);`, result: `a[${i}].size` };
  return {
    init: ['null'],
    add: `if ((${v} = ${arg!.code}) !== null) rt.hllAdd(a[${i}] ??= rt.hllNew(), ${v});`,
    merge: `if (b[${i}] !== null) rt.hllMerge(a[${i}] ??= rt.hllNew(), b[${i}]);`,
    result: `(a[${i}] === null ? 0 : rt.hllCount(a[${i}]))`,
  };
}

function extreme({ agg, arg, i, R, sc, t }: AggSlots): AggCode {
  const v = t();
  const beats = better(agg.type, agg.fn === 'min' ? '<' : '>');
  if (R) {
    // Current extreme plus a value → count multiset to find the next one when it is retracted.
    return {
      init: ['null', 'new Map()'],
      add: `if ((${v} = ${coerce(arg!, agg.type, sc)}) !== null) { rt.msAdd(a[${i + 1}], ${v}); if (a[${i}] === null || ${beats(v, `a[${i}]`)}) a[${i}] = ${v}; }`,
      retract: `if ((${v} = ${coerce(arg!, agg.type, sc)}) !== null && rt.msRemove(a[${i + 1}], ${v}) && ${v} === a[${i}]) a[${i}] = rt.msExtreme(a[${i + 1}], ${agg.fn === 'min' ? -1 : 1});`,
      result: `a[${i}]`,
    };
  }
  return {
    init: ['null'],
    add: `if ((${v} = ${coerce(arg!, agg.type, sc)}) !== null && (a[${i}] === null || ${beats(v, `a[${i}]`)})) a[${i}] = ${v};`,
    merge: `if (b[${i}] !== null && (a[${i}] === null || ${beats(`b[${i}]`, `a[${i}]`)})) a[${i}] = b[${i}];`,
    result: `a[${i}]`,
  };
}

function firstOrLast({ agg, arg, i, R, sc, t }: AggSlots): AggCode {
  const v = t();
  const first = agg.fn === 'first_value';
  if (R) {
    // Every non-NULL value with its arrival number, in arrival order.
    return {
      init: ['[]'],
      add: `if ((${v} = ${coerce(arg!, agg.type, sc)}) !== null) a[${i}].push([seq, ${v}]);`,
      retract: `if ((${v} = ${coerce(arg!, agg.type, sc)}) !== null) rt.entriesRemove(a[${i}], ${v});`,
      result: first ? `(a[${i}].length === 0 ? null : a[${i}][0][1])` : `(a[${i}].length === 0 ? null : a[${i}][a[${i}].length - 1][1])`,
    };
  }
  // Value and the arrival sequence number it was seen at (-1: none yet); NULLs are skipped.
  return {
    init: ['null', '-1'],
    add: first
      ? `if (a[${i + 1}] < 0 && (${v} = ${coerce(arg!, agg.type, sc)}) !== null) { a[${i}] = ${v}; a[${i + 1}] = seq; }`
      : `if ((${v} = ${coerce(arg!, agg.type, sc)}) !== null) { a[${i}] = ${v}; a[${i + 1}] = seq; }`,
    merge: first
      ? `if (b[${i + 1}] >= 0 && (a[${i + 1}] < 0 || b[${i + 1}] < a[${i + 1}])) { a[${i}] = b[${i}]; a[${i + 1}] = b[${i + 1}]; }`
      : `if (b[${i + 1}] > a[${i + 1}]) { a[${i}] = b[${i}]; a[${i + 1}] = b[${i + 1}]; }`,
    result: `a[${i}]`,
  };
}

/** Every aggregate function's accumulator code (exhaustive: a new IrAggFn must be added here). */
const AGGREGATES: Record<IrAggFn, (x: AggSlots) => AggCode> = {
  count_star: ({ i }) => ({ init: ['0'], add: `a[${i}]++;`, merge: `a[${i}] += b[${i}];`, retract: `a[${i}]--;`, result: `a[${i}]` }),
  count: ({ arg, i }) => ({
    init: ['0'],
    add: arg!.type.nullable ? `if (${arg!.code} !== null) a[${i}]++;` : `a[${i}]++;`,
    merge: `a[${i}] += b[${i}];`,
    retract: arg!.type.nullable ? `if (${arg!.code} !== null) a[${i}]--;` : `a[${i}]--;`,
    result: `a[${i}]`,
  }),
  count_distinct: countDistinct,
  approx_count_distinct: countDistinct,
  sum: ({ agg, arg, i, R, sc, t }) => {
    const v = t();
    const plus = combine(agg.type);
    if (R) {
      // Sum plus the count of non-NULL values: the sum is NULL again when they are all retracted.
      return {
        init: ['null', '0'],
        add: `if ((${v} = ${coerce(arg!, agg.type, sc)}) !== null) { a[${i}] = a[${i}] === null ? ${v} : ${plus(`a[${i}]`, v)}; a[${i + 1}]++; }`,
        retract: `if ((${v} = ${coerce(arg!, agg.type, sc)}) !== null) a[${i}] = --a[${i + 1}] === 0 ? null : ${minus(agg.type)(`a[${i}]`, v)};`,
        result: `a[${i}]`,
      };
    }
    return {
      init: ['null'],
      add: `if ((${v} = ${coerce(arg!, agg.type, sc)}) !== null) a[${i}] = a[${i}] === null ? ${v} : ${plus(`a[${i}]`, v)};`,
      merge: `if (b[${i}] !== null) a[${i}] = a[${i}] === null ? b[${i}] : ${plus(`a[${i}]`, `b[${i}]`)};`,
      result: `a[${i}]`,
    };
  },
  min: extreme,
  max: extreme,
  avg: ({ agg, arg, i, R, sc, t }) => {
    // Sum kept in the argument's own type, plus a count: AVG(INT)'s sum is an INT that wraps,
    // as Flink's (measured on Flink 2.3 by the differential test), AVG(BIGINT)'s a BIGINT.
    const v = t();
    const argT: SqlType = arg!.type.kind === 'float' ? { kind: 'double', nullable: true } : arg!.type;
    const plus = combine(argT);
    return {
      init: ['null', '0'],
      add: `if ((${v} = ${coerce(arg!, argT, sc)}) !== null) { a[${i}] = a[${i}] === null ? ${v} : ${plus(`a[${i}]`, v)}; a[${i + 1}]++; }`,
      merge: `if (b[${i}] !== null) { a[${i}] = a[${i}] === null ? b[${i}] : ${plus(`a[${i}]`, `b[${i}]`)}; a[${i + 1}] += b[${i + 1}]; }`,
      ...(R ? { retract: `if ((${v} = ${coerce(arg!, argT, sc)}) !== null) a[${i}] = --a[${i + 1}] === 0 ? null : ${minus(argT)(`a[${i}]`, v)};` } : {}),
      result: `(a[${i + 1}] === 0 ? null : ${avgResult(`a[${i}]`, `a[${i + 1}]`, argT, agg.type)})`,
    };
  },
  first_value: firstOrLast,
  last_value: firstOrLast,
};

// Sums are computed in their result type, as Flink's SumAggFunction (`plus` on INT/BIGINT):
// SUM(INT) wraps at 32 bits, SUM(BIGINT) and AVG's BIGINT sum at 64 bits. Wrapping is
// associative, so panes merged in any order give the same value.
function combine(t: SqlType): (a: string, b: string) => string {
  if (t.kind === 'int') return (a, b) => `(${a} + ${b}) | 0`;
  if (t.kind === 'bigint') return (a, b) => `rt.addI64(${a}, ${b})`;
  if (domainOf(t) === 'dec') return (a, b) => `rt.add64(${a}, ${b})`;
  return (a, b) => `${a} + ${b}`;
}

function minus(t: SqlType): (a: string, b: string) => string {
  if (t.kind === 'int') return (a, b) => `(${a} - ${b}) | 0`;
  if (t.kind === 'bigint') return (a, b) => `rt.subI64(${a}, ${b})`;
  if (domainOf(t) === 'dec') return (a, b) => `rt.sub64(${a}, ${b})`;
  return (a, b) => `${a} - ${b}`;
}

/** `v` sorts before (`<`) or after (`>`) `best`: strings by code point (compare-strings.ts). */
function better(t: SqlType, op: '<' | '>'): (v: string, best: string) => string {
  if (domainOf(t) === 'str') return (v, best) => `rt.compareStrings(${v}, ${best}) ${op} 0`;
  return (v, best) => `${v} ${op} ${best}`;
}

function avgResult(sum: string, count: string, argT: SqlType, out: SqlType): string {
  switch (domainOf(out)) {
    case 'dec':
      return `rt.divDecimal(${sum}, ${scaleOf(argT)}, ${count}, 0, ${scaleOf(out)})`;
    case 'i64':
      return domainOf(argT) === 'num' ? `Math.trunc(${sum} / ${count})` : `rt.div64(${sum}, ${count})`;
    default:
      if (out.kind === 'int') return `Number(rt.div64(${sum}, ${count}))`;
      return domainOf(argT) === 'dec' ? `rt.decimalToNumber(${sum}, ${scaleOf(argT)}) / ${count}` : `Number(${sum}) / ${count}`;
  }
}
