// Lint: a `registry:` schema whose subject compatibility is not BACKWARD or FULL (or their
// transitive forms). Reads IrSource.schemaCompatibility, filled by the checker from the registry.
import type { LintRule } from '../rule.ts';

const SAFE = new Set(['BACKWARD', 'BACKWARD_TRANSITIVE', 'FULL', 'FULL_TRANSITIVE']);

export const registryCompatibility: LintRule = {
  code: 'registry-compatibility-weak',
  run({ plan, diags }) {
    for (const s of plan.sources) {
      const level = s.schemaCompatibility;
      if (!s.schemaRef?.startsWith('registry:') || level === undefined || level === null) continue;
      if (SAFE.has(level.toUpperCase())) continue;
      diags.report('registry-compatibility-weak', s.span, { source: s.name, subject: s.schemaRef.slice('registry:'.length), level: level.toUpperCase() });
    }
  },
};
