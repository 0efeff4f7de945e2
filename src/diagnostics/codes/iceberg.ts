// Diagnostic codes of the iceberg phase. Each entry: severity, title, message, help, long explanation.
import { def } from '../diagnostic.ts';

export const icebergCodes = {
  // (entries added by the iceberg phase; keep codes kebab-case and stable once released)
  'iceberg-placeholder-unused': def<Record<string, never>>({
    severity: 'info',
    title: 'placeholder',
    message: () => 'placeholder',
    explain: 'Placeholder entry; remove when the first real code of this area lands.',
  }),
} as const;
