// IrAggFn → Flink SQL aggregate call, one table. `approx_count_distinct` has no streaming form in
// Flink SQL and becomes an exact COUNT(DISTINCT) (reported as flink-approx-count-distinct).
import type { IrAggFn, IrAggregate } from '../../src/plan/ir.ts';
import { compileExpr, type ColumnResolver } from './functions.ts';

const AGGREGATES: Readonly<Record<IrAggFn, (arg: string) => string>> = {
  count_star: () => 'COUNT(*)',
  count: (a) => `COUNT(${a})`,
  count_distinct: (a) => `COUNT(DISTINCT ${a})`,
  sum: (a) => `SUM(${a})`,
  min: (a) => `MIN(${a})`,
  max: (a) => `MAX(${a})`,
  avg: (a) => `AVG(${a})`,
  approx_count_distinct: (a) => `COUNT(DISTINCT ${a})`,
  first_value: (a) => `FIRST_VALUE(${a})`,
  last_value: (a) => `LAST_VALUE(${a})`,
};

export function compileAggregate(a: IrAggregate, col: ColumnResolver): string {
  return AGGREGATES[a.fn](a.arg ? compileExpr(a.arg, col) : '*');
}
