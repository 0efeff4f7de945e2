// Diagnostic codes of the runtime phase. Each entry: severity, title, message, help, long explanation.
import { def } from '../diagnostic.ts';

export const runtimeCodes = {
  // (entries added by the runtime phase; keep codes kebab-case and stable once released)
  'runtime-placeholder-unused': def<Record<string, never>>({
    severity: 'info',
    title: 'placeholder',
    message: () => 'placeholder',
    explain: 'Placeholder entry; remove when the first real code of this area lands.',
  }),
} as const;
