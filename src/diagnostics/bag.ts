// Collects diagnostics for one compilation. Phases keep going after an error (report all
// errors of a file at once); the bag renders text from the registry at the point of report.
// It also knows the values `${NAME}` resolved to in this compilation and never lets one into a
// diagnostic: messages end up in CI logs and pull-request comments (docs/security.md).
import type { Diagnostic, Label, Severity } from './diagnostic.ts';
import type { Span } from './span.ts';
import { CODES, type Code, type ParamsOf } from './registry.ts';

export interface ReportExtra {
  labels?: Label[];
  notes?: string[];
  /** Overrides the registry's default severity (e.g. a lint promoted by a connector option). */
  severity?: Severity;
}

/**
 * Shorter values are not hidden: replacing every `1` or `dev` in a message would garble it, and
 * a credential that short is never alone (it sits inside a URL or DSN, which is hidden whole).
 */
const MIN_HIDDEN_LENGTH = 4;

/** A DiagnosticBag as plain, structured-cloneable data. */
export interface DiagnosticBagData {
  items: Diagnostic[];
  /** Resolved value → its `${NAME}`, in insertion order. */
  hidden: [string, string][];
}

export class DiagnosticBag {
  readonly items: Diagnostic[] = [];
  /** Resolved value → the `${NAME}` shown instead, longest value first when hiding. */
  private readonly hidden = new Map<string, string>();

  /** Called by `${NAME}` substitution: from now on `value` is shown as `${NAME}` in every diagnostic. */
  hideValue(name: string, value: string): void {
    if (value.length >= MIN_HIDDEN_LENGTH && !this.hidden.has(value)) this.hidden.set(value, `\${${name}}`);
  }

  /** `text` with every hidden value replaced by its `${NAME}`. */
  hide(text: string): string {
    if (this.hidden.size === 0) return text;
    let out = text;
    for (const [value, shown] of [...this.hidden].sort((a, b) => b[0].length - a[0].length)) out = out.split(value).join(shown);
    return out;
  }

  private hideParams(params: Record<string, unknown>): Record<string, unknown> {
    if (this.hidden.size === 0) return params;
    const hideAny = (v: unknown): unknown => (typeof v === 'string' ? this.hide(v) : Array.isArray(v) ? v.map(hideAny) : v);
    return Object.fromEntries(Object.entries(params).map(([k, v]) => [k, hideAny(v)]));
  }

  private hideDiagnostic(d: Diagnostic): Diagnostic {
    if (this.hidden.size === 0) return d;
    return {
      ...d,
      message: this.hide(d.message),
      params: this.hideParams(d.params),
      labels: d.labels.map((l) => ({ ...l, message: this.hide(l.message) })),
      help: d.help === null ? null : this.hide(d.help),
      notes: d.notes.map((n) => this.hide(n)),
    };
  }

  report<C extends Code>(code: C, span: Span, params: ParamsOf<C>, extra: ReportExtra = {}): Diagnostic {
    const entry = CODES[code] as unknown as {
      severity: Severity;
      message: (p: unknown) => string;
      help?: (p: unknown) => string | null;
    };
    const d: Diagnostic = this.hideDiagnostic({
      code,
      severity: extra.severity ?? entry.severity,
      span,
      message: entry.message(params),
      params: params as Record<string, unknown>,
      labels: extra.labels ?? [],
      help: entry.help ? entry.help(params) : null,
      notes: extra.notes ?? [],
    });
    this.items.push(d);
    return d;
  }

  /** Adds diagnostics produced elsewhere (e.g. by a target), hiding this compilation's values. */
  addAll(ds: readonly Diagnostic[]): void {
    this.items.push(...ds.map((d) => this.hideDiagnostic(d)));
  }

  /** The bag as plain data (a build's worker thread hands it to the main thread). */
  toData(): DiagnosticBagData {
    return { items: this.items, hidden: [...this.hidden] };
  }

  /** A bag again from toData(): the same diagnostics, hiding the same values from now on. */
  static fromData(data: DiagnosticBagData): DiagnosticBag {
    const bag = new DiagnosticBag();
    bag.items.push(...data.items);
    for (const [value, shown] of data.hidden) bag.hidden.set(value, shown);
    return bag;
  }

  get hasErrors(): boolean {
    return this.items.some((d) => d.severity === 'error');
  }

  errorCount(): number {
    return this.items.filter((d) => d.severity === 'error').length;
  }

  /** Diagnostics in a stable order: by file, position, then code. */
  sorted(): Diagnostic[] {
    return [...this.items].sort((a, b) => byLocale(a.span.file, b.span.file) || a.span.start.offset - b.span.start.offset || byCodeUnits(a.code, b.code));
  }
}

/**
 * localeCompare, skipped for equal strings: its first call loads ICU's collation data (~7 ms of
 * a cold `pipec check`), and one bag's diagnostics are mostly of one file.
 */
function byLocale(a: string, b: string): number {
  return a === b ? 0 : a.localeCompare(b);
}

/**
 * Codes are `[a-z][a-z0-9-]*` (test/unit/diagnostic-order.test.ts holds it), where code-unit
 * order is localeCompare's order, without loading the collation data.
 */
function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
