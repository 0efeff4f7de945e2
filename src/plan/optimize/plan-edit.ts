// Structural helpers for the optimizer passes (who reads an operator: src/plan/graph.ts): rewiring references
// after an operator is removed or replaced, and the pass-through schemas of scans and filters.
import type { IrColumn, IrOperator, IrSource, PlanDoc } from '../ir.ts';

/** Replaces every reference to operator `from` by `to` (operator inputs, views, sink inputs). */
export function rewire(plan: PlanDoc, from: string, to: string, skip?: string): PlanDoc {
  const sub = (id: string) => (id === from ? to : id);
  return {
    ...plan,
    operators: plan.operators.map((o) => (o.id === skip || !o.inputs.includes(from) ? o : { ...o, inputs: o.inputs.map(sub) })),
    views: plan.views.map((v) => (v.operator === from ? { ...v, operator: to } : v)),
    sinks: plan.sinks.map((s) =>
      s.input === from || s.lateFrom.includes(from) ? { ...s, input: s.input === from ? to : s.input, lateFrom: s.lateFrom.map(sub) } : s,
    ),
  };
}

/**
 * rewire for many operators at once: each key of `map` is replaced by its value. One pass over
 * the plan instead of one per pair (3,000 shared scans were 3,000 copies of the plan).
 */
export function rewireAll(plan: PlanDoc, map: ReadonlyMap<string, string>): PlanDoc {
  if (map.size === 0) return plan;
  const sub = (id: string) => map.get(id) ?? id;
  return {
    ...plan,
    operators: plan.operators.map((o) => (o.inputs.some((i) => map.has(i)) ? { ...o, inputs: o.inputs.map(sub) } : o)),
    views: plan.views.map((v) => (map.has(v.operator) ? { ...v, operator: sub(v.operator) } : v)),
    sinks: plan.sinks.map((s) =>
      (s.input !== null && map.has(s.input)) || s.lateFrom.some((l) => map.has(l)) ? { ...s, input: s.input === null ? null : sub(s.input), lateFrom: s.lateFrom.map(sub) } : s,
    ),
  };
}

export function scanSchema(source: IrSource): IrColumn[] {
  return source.columns.filter((c) => source.usedColumns.includes(c.name));
}

/**
 * Recomputes, in topological order, the schemas that are copies of another's (scan from its
 * source's usedColumns, filter from its input), after a pass changed something upstream.
 */
export function refreshPassThroughSchemas(plan: PlanDoc): PlanDoc {
  const byId = new Map<string, IrOperator>();
  const sources = new Map(plan.sources.map((s) => [s.id, s]));
  const operators = plan.operators.map((o) => {
    let next: IrOperator = o;
    if (o.op === 'scan') {
      const src = sources.get(o.source);
      if (src) next = { ...o, schema: scanSchema(src) };
    } else if (o.op === 'filter') {
      const input = byId.get(o.inputs[0]!);
      if (input) next = { ...o, schema: input.schema, timeColumn: input.timeColumn };
    }
    byId.set(next.id, next);
    return next;
  });
  return { ...plan, operators };
}

/**
 * Whether the passes can rely on the plan's references: every input names an earlier operator,
 * every scan an existing source, every view and sink an operator. A plan the checker built
 * around errors may not be; the optimizer then leaves it as it is.
 */
export function isWellFormed(plan: PlanDoc): boolean {
  const seen = new Set<string>();
  const sources = new Set(plan.sources.map((s) => s.id));
  for (const o of plan.operators) {
    if (seen.has(o.id) || !o.inputs.every((i) => seen.has(i))) return false;
    if (o.op === 'scan' && !sources.has(o.source)) return false;
    seen.add(o.id);
  }
  return (
    plan.views.every((v) => seen.has(v.operator)) &&
    plan.sinks.every((s) => (s.input === null || seen.has(s.input)) && s.lateFrom.every((l) => seen.has(l)))
  );
}
