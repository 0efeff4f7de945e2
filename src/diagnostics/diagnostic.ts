// The diagnostics API every phase and target reports through. A diagnostic is plain data
// (serializable for `--format json`); its text comes from the one registry in ./registry.ts.
import type { Span } from './span.ts';

export type Severity = 'error' | 'warning' | 'info';

/** A secondary location with its own short message ("first defined here"). */
export interface Label {
  span: Span;
  message: string;
}

export interface Diagnostic {
  /** Stable kebab-case code, e.g. `unknown-column`; `pipec explain CODE` documents it. */
  code: string;
  severity: Severity;
  /** Primary location. Lines are 1-based, columns 1-based in UTF-16 code units. */
  span: Span;
  /** One-line message rendered from the registry with `params`. */
  message: string;
  /** The typed parameters the message was rendered from (kept for JSON consumers). */
  params: Record<string, unknown>;
  labels: Label[];
  /** How to fix it, one line; null when the registry has none for this case. */
  help: string | null;
  notes: string[];
}

/** One registry entry: how a code is titled, rendered and explained. */
export interface DiagnosticDef<P> {
  severity: Severity;
  /** Short title used by `pipec explain` and the README's code tables. */
  title: string;
  message: (p: P) => string;
  help?: (p: P) => string | null;
  /** Long explanation for `pipec explain`: why this matters, an example, the fix. */
  explain: string;
}

/** Declares a registry entry; the type parameter fixes the params the code takes. */
export function def<P = Record<string, never>>(d: DiagnosticDef<P>): DiagnosticDef<P> {
  return d;
}
