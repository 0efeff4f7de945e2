// `-- pipec:allow CODE` silences warning CODE on the statement that follows the comment.
// Only warnings can be silenced; errors always stand. The comment is visible in the spec, so
// a reviewer sees every silenced lint.
import type { DiagnosticBag } from '../diagnostics/bag.ts';
import { lookupCode } from '../diagnostics/registry.ts';
import type { PipeFile } from '../syntax/ast.ts';

export function applySuppressions(ast: PipeFile, diagnostics: DiagnosticBag): void {
  const rules: { code: string; from: number; to: number }[] = [];
  for (const s of ast.suppressions) {
    if (!lookupCode(s.code)) {
      diagnostics.report('lint-suppressed-unknown', s.span, { code: s.code });
      continue;
    }
    const next = ast.statements.find((st) => st.span.start.offset >= s.span.end.offset);
    if (next) rules.push({ code: s.code, from: next.span.start.offset, to: next.span.end.offset });
  }
  if (rules.length === 0) return;
  const keep = diagnostics.items.filter(
    (d) =>
      d.severity === 'error' ||
      d.span.file !== ast.file ||
      !rules.some((r) => r.code === d.code && d.span.start.offset >= r.from && d.span.start.offset <= r.to),
  );
  diagnostics.items.splice(0, diagnostics.items.length, ...keep);
}
