// `pipec plan --format json`: the plan IR as JSON with keys sorted at every level, 2-space
// indent and a trailing newline, so equal plans print byte-identical text. Options fed by
// `${NAME}` print their template as `value` too (shown.ts): the plan lands in CI logs.
import type { PlanDoc } from '../ir.ts';
import { shownPlan } from './shown.ts';

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

export function printPlanJson(planDoc: PlanDoc): string {
  // `${NAME}`-fed option values are shown as their template (shown.ts), never resolved.
  const plan = shownPlan(planDoc);
  return JSON.stringify(sortKeys(plan), null, 2) + '\n';
}
