// Optimizer pass: projection pruning. Computes, from the sinks and views back to the sources,
// which columns each operator's output must carry; narrows each source's `usedColumns` to the
// minimal set (in schema order; the watermark column and primary key are always kept), and
// drops project and join outputs nobody reads. Outputs of views and sink inputs are never narrowed.
import type { IrOperator, PlanDoc } from '../ir.ts';
import { assertNever } from '../../util/assert-never.ts';
import { columnRefs } from './expr.ts';
import { refreshPassThroughSchemas } from './plan-edit.ts';

type Needs = Map<string, Set<string>>;

function need(needs: Needs, id: string): Set<string> {
  let s = needs.get(id);
  if (!s) needs.set(id, (s = new Set()));
  return s;
}

function addAll(set: Set<string>, names: Iterable<string>): void {
  for (const n of names) set.add(n);
}

/** The columns of each input that `o` reads to produce the output columns `out`. */
function inputNeeds(o: IrOperator, out: Set<string>, byId: Map<string, IrOperator>): Set<string>[] {
  const ins = o.inputs.map(() => new Set<string>());
  const input = (i: number) => byId.get(o.inputs[i]!);
  switch (o.op) {
    case 'scan':
      break;
    case 'filter':
      addAll(ins[0]!, out);
      addAll(ins[0]!, columnRefs(o.predicate));
      break;
    case 'project':
      for (const e of keptExprs(o, out)) addAll(ins[0]!, columnRefs(e.expr));
      break;
    case 'window_agg':
      ins[0]!.add(o.windowTimeColumn);
      for (const g of o.groupKeys) addAll(ins[0]!, columnRefs(g.expr));
      for (const a of o.aggregates) if (a.arg) addAll(ins[0]!, columnRefs(a.arg));
      if (o.window.kind === 'session') addAll(ins[0]!, o.window.partitionBy);
      // Late rows leave `ON LATE TO` with every input column.
      if (o.late.kind === 'to') addAll(ins[0]!, input(0)?.schema.map((c) => c.name) ?? []);
      break;
    case 'group_agg':
      for (const g of o.groupKeys) addAll(ins[0]!, columnRefs(g.expr));
      for (const a of o.aggregates) if (a.arg) addAll(ins[0]!, columnRefs(a.arg));
      break;
    case 'interval_join':
    case 'temporal_join': {
      for (const m of keptOutputs(o, out)) ins[m.input]!.add(m.column);
      for (const k of o.leftKeys) addAll(ins[0]!, columnRefs(k, 0));
      if (o.residual) for (const side of [0, 1]) addAll(ins[side]!, columnRefs(o.residual, side));
      if (o.op === 'interval_join') {
        for (const k of o.rightKeys) addAll(ins[1]!, columnRefs(k, 1));
        ins[0]!.add(o.leftTime);
        ins[1]!.add(o.rightTime);
      } else {
        addAll(ins[1]!, o.rightKeys);
        ins[0]!.add(o.asOfColumn);
        // The versioned side is ordered by its own event time.
        const rt = input(1)?.timeColumn;
        if (rt) ins[1]!.add(rt);
      }
      break;
    }
    case 'union':
      // Union is positional: every input keeps every column.
      o.inputs.forEach((id, i) => addAll(ins[i]!, byId.get(id)?.schema.map((c) => c.name) ?? []));
      break;
    default:
      return assertNever(o);
  }
  // Retractions and upserts are matched by key downstream of a changelog input.
  o.inputs.forEach((id, i) => {
    const inp = byId.get(id);
    if (inp && inp.changelog !== 'append' && inp.upsertKey) addAll(ins[i]!, inp.upsertKey);
  });
  return ins;
}

function keptExprs(o: Extract<IrOperator, { op: 'project' }>, out: Set<string>) {
  const kept = o.exprs.filter((e) => out.has(e.name));
  // An output nobody reads is dead code the checker does not produce; keep it whole.
  return kept.length ? kept : o.exprs;
}

type JoinOp = Extract<IrOperator, { op: 'interval_join' | 'temporal_join' }>;

function keptOutputs(o: JoinOp, out: Set<string>): JoinOp['outputMap'] {
  const kept = o.outputMap.filter((m) => out.has(m.name));
  return kept.length ? kept : o.outputMap;
}

/** The columns every operator's output must carry (exposed outputs: all of them). */
export function requiredColumns(plan: PlanDoc): Needs {
  const needs: Needs = new Map();
  const byId = new Map(plan.operators.map((o) => [o.id, o]));
  const whole = (id: string) => addAll(need(needs, id), byId.get(id)?.schema.map((c) => c.name) ?? []);
  for (const v of plan.views) whole(v.operator);
  for (const s of plan.sinks) if (s.input) whole(s.input);
  for (const o of [...plan.operators].reverse()) {
    const out = need(needs, o.id);
    if (o.changelog !== 'append' && o.upsertKey) addAll(out, o.upsertKey);
    if (o.timeColumn && o.op !== 'project') out.add(o.timeColumn);
    inputNeeds(o, out, byId).forEach((s, i) => addAll(need(needs, o.inputs[i]!), s));
  }
  return needs;
}

export function pruneProjections(plan: PlanDoc): PlanDoc {
  const needs = requiredColumns(plan);
  const sources = plan.sources.map((src) => {
    const wanted = new Set<string>();
    for (const o of plan.operators) if (o.op === 'scan' && o.source === src.id) addAll(wanted, needs.get(o.id) ?? []);
    if (src.watermark) wanted.add(src.watermark.column);
    addAll(wanted, src.primaryKey ?? []);
    const usedColumns = src.columns.map((c) => c.name).filter((n) => wanted.has(n));
    return { ...src, usedColumns };
  });
  const operators = plan.operators.map((o): IrOperator => {
    if (o.op === 'interval_join' || o.op === 'temporal_join') {
      const outputMap = keptOutputs(o, needs.get(o.id) ?? new Set());
      if (outputMap.length === o.outputMap.length) return o;
      const names = new Set(outputMap.map((m) => m.name));
      return { ...o, outputMap, schema: o.schema.filter((c) => names.has(c.name)), timeColumn: o.timeColumn && names.has(o.timeColumn) ? o.timeColumn : null };
    }
    if (o.op !== 'project') return o;
    const exprs = keptExprs(o, needs.get(o.id) ?? new Set());
    if (exprs.length === o.exprs.length) return o;
    const names = new Set(exprs.map((e) => e.name));
    return {
      ...o,
      exprs,
      schema: o.schema.filter((c) => names.has(c.name)),
      timeColumn: o.timeColumn && names.has(o.timeColumn) ? o.timeColumn : null,
    };
  });
  return refreshPassThroughSchemas({ ...plan, sources, operators });
}
