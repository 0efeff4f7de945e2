// Diagnostic codes of the check phase. Each entry: severity, title, message, help, long explanation.
import { def } from '../diagnostic.ts';

export const checkCodes = {
  // (entries added by the check phase; keep codes kebab-case and stable once released)
  'check-placeholder-unused': def<Record<string, never>>({
    severity: 'info',
    title: 'placeholder',
    message: () => 'placeholder',
    explain: 'Placeholder entry; remove when the first real code of this area lands.',
  }),
} as const;
