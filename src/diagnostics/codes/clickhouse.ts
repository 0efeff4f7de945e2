// Diagnostic codes of the clickhouse phase. Each entry: severity, title, message, help, long explanation.
import { def } from '../diagnostic.ts';

export const clickhouseCodes = {
  // (entries added by the clickhouse phase; keep codes kebab-case and stable once released)
  'clickhouse-placeholder-unused': def<Record<string, never>>({
    severity: 'info',
    title: 'placeholder',
    message: () => 'placeholder',
    explain: 'Placeholder entry; remove when the first real code of this area lands.',
  }),
} as const;
