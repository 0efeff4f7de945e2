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

/** At most this many diagnostics are shown per file; a closing line counts the rest. */
export const MAX_RENDERED_PER_FILE = 50;
/** A source line longer than this is cut to a window around the caret (a 40 KB line stays readable). */
export const MAX_EXCERPT_LINE = 240;
/** The width of that window, in columns. */
export const MAX_EXCERPT_WIDTH = 160;

/**
 * User text (names in messages, source lines) shown on a terminal: control characters (an ESC
 * could recolour or retitle the terminal), NUL and U+2028/U+2029 (which some terminals and
 * editors break lines at) become U+FFFD, one code unit each so caret columns still line up.
 */
export function printable(text: string): string {
  return text.replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]/g, '\ufffd');
}

/** Messages quote user names; a 10,000-character name is shown by its ends. */
export const MAX_MESSAGE_LENGTH = 500;
function clip(text: string): string {
  if (text.length <= MAX_MESSAGE_LENGTH) return text;
  const half = Math.floor((MAX_MESSAGE_LENGTH - 5) / 2);
  return `${text.slice(0, half)} ... ${text.slice(text.length - half)}`;
}

/** The same code, message and place reported twice says nothing new. */
function dedupe(ds: readonly Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return ds.filter((d) => {
    const k = `${d.span.file}\0${d.span.start.offset}\0${d.span.end.offset}\0${d.code}\0${d.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

export function renderDiagnostics(ds: readonly Diagnostic[], opts: RenderOptions): string {
  const maps = new Map<string, LineMap | null>();
  const mapFor = (file: string): LineMap | null => {
    if (!maps.has(file)) {
      const text = opts.readSource(file);
      maps.set(file, text === null ? null : new LineMap(text));
    }
    return maps.get(file)!;
  };
  const shown = new Map<string, number>();
  const out: string[] = [];
  for (const d of dedupe(ds)) {
    const n = (shown.get(d.span.file) ?? 0) + 1;
    shown.set(d.span.file, n);
    if (n <= MAX_RENDERED_PER_FILE) out.push(renderOne(d, opts.color, mapFor));
  }
  for (const [file, n] of shown) {
    if (n > MAX_RENDERED_PER_FILE) out.push(`... and ${n - MAX_RENDERED_PER_FILE} more diagnostics in ${file} (see --format json for all)\n`);
  }
  return out.join('\n');
}

/**
 * The part of a line shown for a caret at [col, endCol) (1-based): the whole line when short,
 * else a window of MAX_EXCERPT_WIDTH columns starting a little before the caret, with `...`
 * where text was cut. Returns the shown text and the caret's column and width in it.
 */
export function excerptWindow(line: string, col: number, endCol: number): { text: string; col: number; width: number } {
  const width = Math.max(1, endCol - col);
  if (line.length <= MAX_EXCERPT_LINE) return { text: line, col, width };
  const lead = 20;
  const from = Math.max(0, Math.min(col - 1 - lead, line.length - MAX_EXCERPT_WIDTH));
  const to = Math.min(line.length, from + MAX_EXCERPT_WIDTH);
  const pre = from > 0 ? '...' : '';
  const post = to < line.length ? '...' : '';
  const shownCol = col - from + pre.length;
  const shownWidth = Math.max(1, Math.min(width, to - (col - 1)));
  return { text: pre + line.slice(from, to) + post, col: shownCol, width: shownWidth };
}

function renderOne(d: Diagnostic, color: boolean, mapFor: (file: string) => LineMap | null): string {
  const c = (k: keyof typeof COLORS, s: string): string => (color ? `${COLORS[k]}${s}${COLORS.reset}` : s);
  const out: string[] = [];
  out.push(`${c(d.severity, `${d.severity}[${d.code}]`)}${c('bold', `: ${clip(printable(d.message))}`)}`);
  const spans = [d.span, ...d.labels.map((l) => l.span)];
  const gutter = Math.max(...spans.map((s) => String(s.start.line).length));
  const pad = ' '.repeat(gutter);
  out.push(`${pad}${c('blue', '-->')} ${location(d.span)}`);
  const excerpt = (span: Span, mark: string, label: string | null, kind: Severity | 'blue'): void => {
    const map = mapFor(span.file);
    if (!map) return;
    const full = map.lineText(span.start.line);
    const endCol = span.end.line === span.start.line ? span.end.column : full.length + 1;
    const { text: shown, col, width } = excerptWindow(full, span.start.column, endCol);
    const line = printable(shown);
    out.push(`${pad} ${c('blue', '|')}`);
    out.push(`${c('blue', String(span.start.line).padStart(gutter))} ${c('blue', '|')} ${line}`);
    const underline = ' '.repeat(Math.max(0, col - 1)) + mark.repeat(width);
    out.push(`${pad} ${c('blue', '|')} ${c(kind, underline + (label ? ` ${printable(label)}` : ''))}`);
  };
  if (!WHOLE_FILE_CODES.has(d.code)) excerpt(d.span, '^', null, d.severity);
  for (const l of d.labels) {
    if (l.span.file !== d.span.file) out.push(`${pad}${c('blue', '-->')} ${location(l.span)}`);
    excerpt(l.span, '-', l.message, 'blue');
  }
  if (d.help || d.notes.length) out.push(`${pad} ${c('blue', '|')}`);
  for (const n of d.notes) out.push(`${pad} ${c('blue', '=')} note: ${clip(printable(n))}`);
  if (d.help) out.push(`${pad} ${c('blue', '=')} ${c('bold', 'help')}: ${clip(printable(d.help))}`);
  return out.join('\n') + '\n';
}

export function location(span: Span): string {
  return `${span.file}:${span.start.line}:${span.start.column}`;
}

/** One line per diagnostic, for summaries and CI logs: `file:line:col: error[code]: message`. */
export function renderShort(d: Diagnostic): string {
  return `${location(d.span)}: ${d.severity}[${d.code}]: ${clip(printable(d.message))}`;
}

/** The JSON form for editors and CI annotations: stable keys, 1-based lines and columns. */
export function diagnosticsToJson(ds: readonly Diagnostic[]): string {
  return (
    JSON.stringify(
      dedupe(ds).map((d) => ({
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
