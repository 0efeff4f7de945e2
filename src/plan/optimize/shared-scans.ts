// Optimizer pass: shared source scans. Several scans of one source (two views reading the same
// topic) become the first of them, so the source is read and decoded once.
import type { PlanDoc } from '../ir.ts';
import { rewireAll } from './plan-edit.ts';

export function shareScans(plan: PlanDoc): PlanDoc {
  const first = new Map<string, string>();
  const replaced = new Map<string, string>();
  for (const o of plan.operators) {
    if (o.op !== 'scan') continue;
    const kept = first.get(o.source);
    if (kept === undefined) first.set(o.source, o.id);
    else replaced.set(o.id, kept);
  }
  if (replaced.size === 0) return plan;
  // All at once: a kept scan is never itself replaced, so one substitution pass is the same as
  // rewiring pair by pair, without copying the plan once per duplicate (quadratic).
  const out = rewireAll(plan, replaced);
  return { ...out, operators: out.operators.filter((x) => !replaced.has(x.id)) };
}
