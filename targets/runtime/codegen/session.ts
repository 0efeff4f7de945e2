// SESSION windows: the partition key function. Sessions are formed per PARTITION BY key (one
// sequence over the whole stream without PARTITION BY) and the GROUP BY keys aggregate within
// each session, as in Flink; when the PARTITION BY columns are exactly the GROUP BY keys (the
// common case) the group key is the partition key and no function is generated.
import type { IrColumn, WindowAggOp } from '../../../src/plan/ir.ts';
import { jsComment } from './js-text.ts';
import { columnIndex } from '../../../src/plan/graph.ts';


/** Source of `function <name>(r)` returning the row's partition key, or null when it is the group key. */
export function sessionPartitionFn(o: WindowAggOp, inCols: IrColumn[], name: string): string | null {
  if (o.window.kind !== 'session') return null;
  const parts = o.window.partitionBy.map((p) => {
    const i = columnIndex(inCols, p);
    if (i < 0) throw new Error(`SESSION PARTITION BY column '${p}' is not in the input of ${o.id}`);
    return i;
  });
  const keys = o.groupKeys.map((k) => (k.expr.kind === 'col' && k.expr.input === 0 ? columnIndex(inCols, k.expr.name) : -1));
  const pset = new Set(parts);
  if (keys.length === pset.size && keys.every((i) => pset.has(i))) return null;
  // A Map key as AggFns.keyOf makes one: the value for one column, a joined text for several.
  const cells = [...pset].map((i) => `r[${i}]`);
  const body = cells.length === 0 ? 'return 0;' : cells.length === 1 ? `return ${cells[0]};` : `return rt.compositeKey(${cells.join(', ')});`;
  const what = o.window.partitionBy.length ? `PARTITION BY ${o.window.partitionBy.join(', ')}` : 'no PARTITION BY: one session sequence for all rows';
  return `// ${jsComment(o.id)}: sessions per ${jsComment(what)}; the GROUP BY keys aggregate within them\nfunction ${name}(r) {\n  ${body}\n}`;
}
