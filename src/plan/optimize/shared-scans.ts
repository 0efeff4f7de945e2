// Optimizer pass: shared source scans. Several scans of one source (two views reading the same
// topic) become the first of them, so the source is read and decoded once.
import type { PlanDoc } from '../ir.ts';
import { rewire } from './plan-edit.ts';

export function shareScans(plan: PlanDoc): PlanDoc {
  const first = new Map<string, string>();
  let out = plan;
  for (const o of plan.operators) {
    if (o.op !== 'scan') continue;
    const kept = first.get(o.source);
    if (kept === undefined) {
      first.set(o.source, o.id);
      continue;
    }
    out = rewire(out, o.id, kept);
    out = { ...out, operators: out.operators.filter((x) => x.id !== o.id) };
  }
  return out;
}
