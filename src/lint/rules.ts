// The one table of lints, run in this order by lintPipeline: the generic ones (rules/), then
// those of each connector descriptor (src/connectors/<name>/). Adding a generic lint: one file
// under rules/, its code in src/diagnostics/codes/lint.ts, one line here.
import type { LintRule } from './rule.ts';
import { connectors } from '../connectors/index.ts';
import { constantFalseFilter } from './rules/constant-filter.ts';
import { distinctState } from './rules/distinct-state.ts';
import { groupKeyMessageKey, hotPartition } from './rules/group-keys.ts';
import { registryCompatibility } from './rules/registry-compatibility.ts';
import { unboundedState } from './rules/unbounded-state.ts';
import { watermarkIdleTimeout } from './rules/watermark-idle-timeout.ts';
import { joinLateUnspecified, windowLateUnspecified } from './rules/window-late.ts';

export const GENERIC_LINT_RULES: readonly LintRule[] = [
  // sources
  watermarkIdleTimeout,
  registryCompatibility,
  // operators
  windowLateUnspecified,
  joinLateUnspecified,
  constantFalseFilter,
  unboundedState,
  distinctState,
  groupKeyMessageKey,
  hotPartition,
];

/** Every lint: the generic ones, then the connectors' (the descriptor table as it is now). */
export function lintRules(): readonly LintRule[] {
  return [...GENERIC_LINT_RULES, ...connectors().flatMap((d) => d.lints ?? [])];
}
