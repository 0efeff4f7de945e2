// `pipec plan --format json`: the plan IR as JSON with keys sorted at every level, 2-space
// indent and a trailing newline, so equal plans print byte-identical text.
import type { PlanDoc } from '../ir.ts';

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      const x = (v as Record<string, unknown>)[k];
      if (x !== undefined) out[k] = sortKeys(x);
    }
    return out;
  }
  return v;
}

export function printPlanJson(plan: PlanDoc): string {
  return JSON.stringify(sortKeys(plan), null, 2) + '\n';
}
