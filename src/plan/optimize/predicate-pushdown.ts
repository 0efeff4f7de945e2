// Optimizer pass: predicate pushdown. Moves the AND-conjuncts of a filter below the operator
// it reads when that cannot change any result: into a filter below (merged); below a project when they read only
// passed-through columns; into every input of a union; below a window or group aggregate only
// when they read only (passed-through) group keys and no late rows are routed to a sink; into
// the left input of a join (and the right of an inner interval join), never into the
// null-padded side of a LEFT join or the versioned side of a temporal join.
import type { FilterOp, IrColumn, IrExpr, IrOperator, PlanDoc } from '../ir.ts';
import { assertNever } from '../../util/assert-never.ts';
import { andAll, columnRefs, conjuncts, inputsRead, mapExpr } from './expr.ts';
import { rewire } from './plan-edit.ts';
import { readers } from '../graph.ts';

/** For an input slot of the operator below: how to rename the filter's columns for it, or null. */
type Renamer = (name: string) => string | null;

interface Target {
  slot: number;
  rename: Renamer;
}

function passThrough(exprs: { name: string; expr: IrExpr }[]): Renamer {
  return (name) => {
    const e = exprs.find((x) => x.name === name)?.expr;
    return e && e.kind === 'col' ? e.name : null;
  };
}

/** The input slots a conjunct may move into below `below`, each with its column renaming. */
function targetsFor(plan: PlanDoc, below: IrOperator): Target[] {
  switch (below.op) {
    case 'project':
      return [{ slot: 0, rename: passThrough(below.exprs) }];
    case 'union':
      return below.inputs.map((id, slot) => {
        const input = plan.operators.find((o) => o.id === id)!;
        return {
          slot,
          rename: (name: string) => {
            const i = below.schema.findIndex((c) => c.name === name);
            return i >= 0 ? (input.schema[i]?.name ?? null) : null;
          },
        };
      });
    case 'window_agg':
      // Moving the filter below would stop late rows of filtered keys from reaching the late sink.
      if (below.late.kind === 'to') return [];
      return [{ slot: 0, rename: passThrough(below.groupKeys) }];
    case 'group_agg':
      return [{ slot: 0, rename: passThrough(below.groupKeys) }];
    case 'interval_join':
    case 'temporal_join': {
      const side = (slot: number): Target => ({
        slot,
        rename: (name) => {
          const m = below.outputMap.find((x) => x.name === name);
          return m && m.input === slot ? m.column : null;
        },
      });
      return below.op === 'interval_join' && below.joinType === 'inner' ? [side(0), side(1)] : [side(0)];
    }
    case 'scan':
    case 'filter':
      return [];
    default:
      return assertNever(below);
  }
}

/** The conjunct over the target input's columns (typed as that input types them), or null. */
function renameExpr(e: IrExpr, rename: Renamer, inputSchema: IrColumn[]): IrExpr | null {
  for (const name of columnRefs(e)) if (rename(name) === null) return null;
  return mapExpr(e, (x) => {
    if (x.kind !== 'col') return x;
    const name = rename(x.name)!;
    return { ...x, input: 0, name, type: inputSchema.find((c) => c.name === name)?.type ?? x.type };
  });
}

function schemaOf(plan: PlanDoc, id: string): IrColumn[] {
  return plan.operators.find((o) => o.id === id)?.schema ?? [];
}

function freshId(plan: PlanDoc, base: string): string {
  const taken = new Set(plan.operators.map((o) => o.id));
  if (!taken.has(base)) return base;
  let n = 2;
  while (taken.has(`${base}_${n}`)) n++;
  return `${base}_${n}`;
}

/**
 * A filter on a filter becomes one filter (the lower one's id and place, its conjuncts first),
 * which can then move further down as a whole or in part.
 */
function mergeInto(plan: PlanDoc, f: FilterOp, below: FilterOp): PlanDoc {
  const merged: FilterOp = { ...below, predicate: andAll([...conjuncts(below.predicate), ...conjuncts(f.predicate)]) };
  const out = rewire(plan, f.id, below.id);
  return { ...out, operators: out.operators.filter((o) => o.id !== f.id).map((o) => (o.id === below.id ? merged : o)) };
}

/** One pushdown of filter `f`, or null when nothing of it can move. */
/** Who reads each operator, computed once per sweep (not per filter: quadratic in views). */
interface PlanIndex {
  byId: Map<string, IrOperator>;
  consumers: Map<string, number>;
  exposed: Set<string>;
}

function indexPlan(plan: PlanDoc): PlanIndex {
  const byId = new Map(plan.operators.map((o) => [o.id, o] as [string, IrOperator]));
  const { count, exposed } = readers(plan);
  return { byId, consumers: count, exposed };
}

function pushOnce(plan: PlanDoc, f: FilterOp, index: PlanIndex): PlanDoc | null {
  const below = index.byId.get(f.inputs[0]!);
  if (!below || (index.consumers.get(below.id) ?? 0) !== 1 || index.exposed.has(below.id)) return null;
  if (below.op === 'filter') return mergeInto(plan, f, below);
  const targets = targetsFor(plan, below);
  if (targets.length === 0) return null;

  const moved = new Map<number, IrExpr[]>();
  const kept: IrExpr[] = [];
  for (const c of conjuncts(f.predicate)) {
    if (inputsRead(c).size > 1) {
      kept.push(c);
      continue;
    }
    // A union needs the conjunct in every input; elsewhere the first slot that can take it.
    const renamed = targets.map((t) => ({ slot: t.slot, expr: renameExpr(c, t.rename, schemaOf(plan, below.inputs[t.slot]!)) }));
    const ok = below.op === 'union' ? (renamed.every((r) => r.expr) ? renamed : []) : renamed.filter((r) => r.expr).slice(0, 1);
    if (ok.length === 0) {
      kept.push(c);
      continue;
    }
    for (const r of ok) moved.set(r.slot, [...(moved.get(r.slot) ?? []), r.expr!]);
  }
  if (moved.size === 0) return null;

  let out = plan;
  const newFilters: FilterOp[] = [];
  const newInputs = [...below.inputs];
  const reuseId = kept.length === 0 && moved.size === 1;
  for (const [slot, preds] of [...moved.entries()].sort((a, b) => a[0] - b[0])) {
    const input = out.operators.find((o) => o.id === below.inputs[slot])!;
    const id = reuseId ? f.id : freshId({ ...out, operators: [...out.operators, ...newFilters] }, `${f.id}_${slot}`);
    newFilters.push({
      op: 'filter',
      id,
      inputs: [input.id],
      predicate: andAll(preds),
      schema: input.schema,
      changelog: input.changelog,
      upsertKey: input.upsertKey,
      stateBound: { kind: 'stateless' },
      timeColumn: input.timeColumn,
      span: f.span,
    });
    newInputs[slot] = id;
  }

  // Remove or shrink the original filter first, so a reused id is free.
  if (kept.length === 0) {
    out = rewire(out, f.id, below.id);
    out = { ...out, operators: out.operators.filter((o) => o.id !== f.id) };
  } else {
    out = { ...out, operators: out.operators.map((o) => (o.id === f.id ? { ...f, predicate: andAll(kept) } : o)) };
  }
  const operators: IrOperator[] = [];
  for (const o of out.operators) {
    if (o.id === below.id) operators.push(...newFilters, { ...o, inputs: newInputs } as IrOperator);
    else operators.push(o);
  }
  return { ...out, operators };
}

/** The pass: pushes filters down until none can move further. */
export function pushDownPredicates(plan: PlanDoc): PlanDoc {
  let out = plan;
  // Each step moves a filter strictly closer to the sources, so this bound is never reached.
  for (let budget = plan.operators.length * plan.operators.length + 1; budget > 0; budget--) {
    let changed = false;
    const index = indexPlan(out);
    for (const o of out.operators) {
      if (o.op !== 'filter') continue;
      const next = pushOnce(out, o, index);
      if (next) {
        out = next;
        changed = true;
        break;
      }
    }
    if (!changed) break;
  }
  return out;
}
