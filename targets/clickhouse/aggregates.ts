// The ONE aggregate table of the ClickHouse target: IrAggFn → `-State` columns stored in an
// AggregatingMergeTree and the `-Merge` expression that finalizes them in the read view.
import type { IrAggFn, SqlType } from '../../src/plan/ir.ts';
import { assertNever } from '../../src/util/assert-never.ts';
import { chType } from './types.ts';

/** One stored state column of an aggregate. */
export interface StateColumn {
  /** Appended to the aggregate's output name ('' for the single state of most aggregates). */
  suffix: string;
  /** ClickHouse aggregate function (without -State/-Merge). */
  fn: string;
  /** What the function takes: nothing (count()), the argument, or the argument and the event time. */
  args: 'none' | 'value' | 'value_time';
}

export interface AggregateSpec {
  states: StateColumn[];
  /** The final value from the merged states (SQL texts in `states` order), before the cast to the IR type. */
  finalize: (merged: string[], resultType: SqlType) => string;
  /** Whether merging a redelivered (duplicate) row leaves the result unchanged. */
  idempotent: boolean;
}

const single = (fn: string, args: StateColumn['args'], idempotent: boolean): AggregateSpec => ({
  states: [{ suffix: '', fn, args }],
  finalize: (m) => m[0]!,
  idempotent,
});

export const AGGREGATES: Readonly<Record<IrAggFn, AggregateSpec>> = {
  count_star: single('count', 'none', false),
  // count(x), uniqExact(x) and friends skip NULL arguments, as SQL aggregates do.
  count: single('count', 'value', false),
  count_distinct: single('uniqExact', 'value', true),
  // sum(Decimal(p, s)) is Decimal(38, s) in ClickHouse: exact, like the runtime.
  sum: single('sum', 'value', false),
  min: single('min', 'value', true),
  max: single('max', 'value', true),
  // avg() of a Decimal is Float64 in ClickHouse; a sum and a count keep it exact.
  avg: {
    states: [
      { suffix: '__sum', fn: 'sum', args: 'value' },
      { suffix: '__count', fn: 'count', args: 'value' },
    ],
    finalize: ([sum, count], t) => avgOf(sum!, count!, t),
    idempotent: false,
  },
  approx_count_distinct: single('uniq', 'value', true),
  first_value: single('argMin', 'value_time', true),
  last_value: single('argMax', 'value_time', true),
};

/** AVG in the IR's result type: integers truncate (SQL), decimals round half away from zero at the result scale. */
function avgOf(sum: string, count: string, t: SqlType): string {
  const body = ((): string => {
    switch (t.kind) {
      case 'int':
      case 'bigint':
        return `intDiv(${sum}, ${count})`;
      case 'decimal':
        // Truncating at scale + 1 and rounding at scale gives exact half-up rounding.
        return `round(divideDecimal(toDecimal256(${sum}, ${t.scale}), toDecimal256(${count}, 0), ${t.scale + 1}), ${t.scale})`;
      case 'float':
      case 'double':
        return `(${sum} / ${count})`;
      case 'boolean':
      case 'string':
      case 'bytes':
      case 'date':
      case 'timestamp':
      case 'array':
      case 'map':
      case 'row':
      case 'interval':
      case 'null':
        throw new Error(`AVG cannot produce ${t.kind}`);
      default:
        return assertNever(t);
    }
  })();
  return `if(${count} = 0, NULL, ${body})`;
}

/** The `AggregateFunction(...)` column type of a state. */
export function stateType(s: StateColumn, argType: SqlType | null, timeType: SqlType | null): string {
  const args: string[] = [];
  if (s.args !== 'none' && argType) args.push(chType(argType));
  if (s.args === 'value_time' && timeType) args.push(chType(timeType));
  return `AggregateFunction(${[s.fn, ...args].join(', ')})`;
}
