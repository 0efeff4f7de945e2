// Renders diagnostics for people (source line + caret underline, colour on a TTY) and for
// machines (`--format json`). Lines and columns shown are 1-based.
import type { Diagnostic, Severity } from './diagnostic.ts';
import { LineMap, type Span } from './span.ts';

export interface RenderOptions {
  color: boolean;
  /** Reads a file's text for the source excerpt; null when unavailable. */
  readSource(file: string): string | null;
}

const COLORS: Record<Severity | 'blue' | 'bold' | 'reset', string> = {
  error: '\x1b[1;31m',
  warning: '\x1b[1;33m',
  info: '\x1b[1;36m',
  blue: '\x1b[1;34m',
  bold: '\x1b[1m',
  reset: '\x1b[0m',
};

/** Diagnostics about a path as a whole (not about its text): no excerpt, whatever the file holds. */
const WHOLE_FILE_CODES = new Set(['file-not-found', 'not-a-spec-file']);

export function renderDiagnostics(ds: readonly Diagnostic[], opts: RenderOptions): string {
  const maps = new Map<string, LineMap | null>();
  const mapFor = (file: string): LineMap | null => {
    if (!maps.has(file)) {
      const text = opts.readSource(file);
      maps.set(file, text === null ? null : new LineMap(text));
    }
    return maps.get(file)!;
  };
  return ds.map((d) => renderOne(d, opts.color, mapFor)).join('\n');
}

function renderOne(d: Diagnostic, color: boolean, mapFor: (file: string) => LineMap | null): string {
  const c = (k: keyof typeof COLORS, s: string): string => (color ? `${COLORS[k]}${s}${COLORS.reset}` : s);
  const out: string[] = [];
  out.push(`${c(d.severity, `${d.severity}[${d.code}]`)}${c('bold', `: ${d.message}`)}`);
  const spans = [d.span, ...d.labels.map((l) => l.span)];
  const gutter = Math.max(...spans.map((s) => String(s.start.line).length));
  const pad = ' '.repeat(gutter);
  out.push(`${pad}${c('blue', '-->')} ${location(d.span)}`);
  const excerpt = (span: Span, mark: string, label: string | null, kind: Severity | 'blue'): void => {
    const map = mapFor(span.file);
    if (!map) return;
    const line = map.lineText(span.start.line);
    const endCol = span.end.line === span.start.line ? span.end.column : line.length + 1;
    const width = Math.max(1, endCol - span.start.column);
    out.push(`${pad} ${c('blue', '|')}`);
    out.push(`${c('blue', String(span.start.line).padStart(gutter))} ${c('blue', '|')} ${line}`);
    const underline = ' '.repeat(Math.max(0, span.start.column - 1)) + mark.repeat(width);
    out.push(`${pad} ${c('blue', '|')} ${c(kind, underline + (label ? ` ${label}` : ''))}`);
  };
  if (!WHOLE_FILE_CODES.has(d.code)) excerpt(d.span, '^', null, d.severity);
  for (const l of d.labels) {
    if (l.span.file !== d.span.file) out.push(`${pad}${c('blue', '-->')} ${location(l.span)}`);
    excerpt(l.span, '-', l.message, 'blue');
  }
  if (d.help || d.notes.length) out.push(`${pad} ${c('blue', '|')}`);
  for (const n of d.notes) out.push(`${pad} ${c('blue', '=')} note: ${n}`);
  if (d.help) out.push(`${pad} ${c('blue', '=')} ${c('bold', 'help')}: ${d.help}`);
  return out.join('\n') + '\n';
}

export function location(span: Span): string {
  return `${span.file}:${span.start.line}:${span.start.column}`;
}

/** One line per diagnostic, for summaries and CI logs: `file:line:col: error[code]: message`. */
export function renderShort(d: Diagnostic): string {
  return `${location(d.span)}: ${d.severity}[${d.code}]: ${d.message}`;
}

/** The JSON form for editors and CI annotations: stable keys, 1-based lines and columns. */
export function diagnosticsToJson(ds: readonly Diagnostic[]): string {
  return (
    JSON.stringify(
      ds.map((d) => ({
        code: d.code,
        severity: d.severity,
        message: d.message,
        file: d.span.file,
        line: d.span.start.line,
        column: d.span.start.column,
        endLine: d.span.end.line,
        endColumn: d.span.end.column,
        help: d.help,
        labels: d.labels.map((l) => ({ message: l.message, file: l.span.file, line: l.span.start.line, column: l.span.start.column })),
        notes: d.notes,
        params: d.params,
      })),
      null,
      2,
    ) + '\n'
  );
}

export function summaryLine(ds: readonly Diagnostic[]): string {
  const e = ds.filter((d) => d.severity === 'error').length;
  const w = ds.filter((d) => d.severity === 'warning').length;
  const plural = (n: number, s: string): string => `${n} ${s}${n === 1 ? '' : 's'}`;
  return `${plural(e, 'error')}, ${plural(w, 'warning')}`;
}
