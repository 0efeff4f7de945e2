// Diagnostic codes of the plan phase (src/plan/: optimizer findings surfaced by the lint table).
// Each entry: severity, title, message, help, long explanation.
import { def } from '../diagnostic.ts';

export const planCodes = {
  'filter-always-false': def<{ owner: string; predicate: string }>({
    severity: 'warning',
    title: 'a filter that no row can pass',
    message: (p) => `the condition ${p.predicate} in ${p.owner} is always false or NULL after constant folding: nothing flows past it`,
    help: () => 'check the literal values and the operator of the condition; remove the statement if it is meant to be disabled',
    explain: `The optimizer folds conditions made only of literals (\`1 > 2\`, \`x AND FALSE\`,
\`status = NULL\`). A WHERE or HAVING that folds to FALSE or NULL lets no row through, so the
view and every sink fed by it stay empty. This is nearly always a typo, such as \`= NULL\`
where \`IS NULL\` was meant (a comparison with NULL is NULL, never true).`,
  }),
} as const;
