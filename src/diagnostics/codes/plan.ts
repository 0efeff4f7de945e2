// Diagnostic codes of the plan phase. Each entry: severity, title, message, help, long explanation.
import { def } from '../diagnostic.ts';

export const planCodes = {
  // (entries added by the plan phase; keep codes kebab-case and stable once released)
  'plan-placeholder-unused': def<Record<string, never>>({
    severity: 'info',
    title: 'placeholder',
    message: () => 'placeholder',
    explain: 'Placeholder entry; remove when the first real code of this area lands.',
  }),
} as const;
