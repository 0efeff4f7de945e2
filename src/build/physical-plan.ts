// The physical plan for `pipec plan --physical`: the lowering and its printers, reached through
// the driver so the CLI imports no phase (test/unit/layering.test.ts).
export { lowerPlan } from '../plan/physical/lower.ts';
export { printPhysicalDot, printPhysicalJson, printPhysicalText } from '../plan/physical/print.ts';
export type { PhysicalPlan } from '../plan/physical/types.ts';
