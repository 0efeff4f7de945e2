// Collects diagnostics for one compilation. Phases keep going after an error (report all
// errors of a file at once); the bag renders text from the registry at the point of report.
import type { Diagnostic, Label, Severity } from './diagnostic.ts';
import type { Span } from './span.ts';
import { CODES, type Code, type ParamsOf } from './registry.ts';

export interface ReportExtra {
  labels?: Label[];
  notes?: string[];
  /** Overrides the registry's default severity (e.g. a lint promoted by a connector option). */
  severity?: Severity;
}

export class DiagnosticBag {
  readonly items: Diagnostic[] = [];

  report<C extends Code>(code: C, span: Span, params: ParamsOf<C>, extra: ReportExtra = {}): Diagnostic {
    const entry = CODES[code] as unknown as {
      severity: Severity;
      message: (p: unknown) => string;
      help?: (p: unknown) => string | null;
    };
    const d: Diagnostic = {
      code,
      severity: extra.severity ?? entry.severity,
      span,
      message: entry.message(params),
      params: params as Record<string, unknown>,
      labels: extra.labels ?? [],
      help: entry.help ? entry.help(params) : null,
      notes: extra.notes ?? [],
    };
    this.items.push(d);
    return d;
  }

  /** Adds diagnostics produced elsewhere (e.g. by a target) unchanged. */
  addAll(ds: readonly Diagnostic[]): void {
    this.items.push(...ds);
  }

  get hasErrors(): boolean {
    return this.items.some((d) => d.severity === 'error');
  }

  errorCount(): number {
    return this.items.filter((d) => d.severity === 'error').length;
  }

  /** Diagnostics in a stable order: by file, position, then code. */
  sorted(): Diagnostic[] {
    return [...this.items].sort(
      (a, b) =>
        a.span.file.localeCompare(b.span.file) ||
        a.span.start.offset - b.span.start.offset ||
        a.code.localeCompare(b.code),
    );
  }
}
