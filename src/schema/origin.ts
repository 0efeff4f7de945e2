// Where a schema text came from (a file or a registry subject) and how its problems are
// reported: the primary span is always the `schema` option, with a label inside the file.
import YAML from 'yaml';
import type { DiagnosticBag, ReportExtra } from '../diagnostics/bag.ts';
import { LineMap, type Span } from '../diagnostics/span.ts';
import type { SqlType } from '../types/sql-type.ts';
import type { SchemaField } from './schema-loader.ts';

export interface SchemaOrigin {
  /** How messages name the schema: `schemas/orders.avsc`, `registry:orders-value (version 3)`. */
  display: string;
  /** Path of the schema file for spans in it (as given, relative to the cwd), or null (registry). */
  file: string | null;
  /** Span of the `schema` option: the primary location of every schema diagnostic. */
  optionSpan: Span;
  diags: DiagnosticBag;
  /** The schema text, when labels inside it can be placed (JSON documents of a file). */
  text?: string;
}

/** What a format mapper hands back to the loader. */
export interface MappedSchema {
  fields: SchemaField[];
  canonicalText: string;
  messageName?: string;
}

/** Builds an SqlType of the given nullability; the cells of every format's mapping table. */
export type TypeOf = (nullable: boolean) => SqlType;

/** Reports a parse error at 1-based line:col of the schema text (when known). */
export function reportParseError(origin: SchemaOrigin, text: string, offset: number | null, detail: string, line?: number): void {
  let pos: { line: number; column: number } | null = null;
  let labelSpan: Span | null = null;
  const lm = new LineMap(text);
  if (offset !== null) {
    const o = Math.max(0, Math.min(offset, text.length));
    pos = lm.pos(o);
    if (origin.file) labelSpan = lm.span(origin.file, o, Math.min(o + 1, text.length));
  } else if (line !== undefined) {
    pos = { line, column: 1 };
    if (origin.file) {
      const lineStart = offsetOfLine(text, line);
      labelSpan = lm.span(origin.file, lineStart, lineStart + lm.lineText(line).length);
    }
  }
  origin.diags.report(
    'schema-parse-error',
    origin.optionSpan,
    { path: origin.display, line: pos?.line ?? null, column: offset !== null ? (pos?.column ?? null) : null, detail },
    labelSpan ? { labels: [{ span: labelSpan, message: 'the parser stopped here' }] } : {},
  );
}

export function offsetOfLine(text: string, line: number): number {
  let off = 0;
  for (let l = 1; l < line; l++) {
    const nl = text.indexOf('\n', off);
    if (nl < 0) return text.length;
    off = nl + 1;
  }
  return off;
}

/** JSON.parse with a coded diagnostic at the position V8 reports. */
export function parseJsonText(text: string, origin: SchemaOrigin): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    const m = /at position (\d+)/.exec(msg);
    // V8 omits the position when the text ends early ("Unexpected end of JSON input").
    const offset = m ? Number(m[1]) : text.length;
    const detail = msg.replace(/\s*\(line \d+ column \d+\)$/, '').replace(/ in JSON at position \d+.*$/, '');
    reportParseError(origin, text, offset, detail);
    return { ok: false };
  }
}

/** A field path for messages: `device.os`, `tags[]`, `attributes{}`. */
export const joinPath = (parent: string, name: string): string => (parent ? `${parent}.${name}` : name);

/**
 * A label at the value a JSON pointer (`/fields/2/type`) names in the schema file, found through
 * yaml's parser (JSON is YAML 1.2, and yaml keeps source ranges); none for registry schemas.
 */
export function labelAtPointer(origin: SchemaOrigin, pointer: string | null, message: string): ReportExtra {
  if (!origin.file || origin.text === undefined || pointer === null) return {};
  const span = locatePointer(origin.text, pointer, origin.file);
  return span ? { labels: [{ span, message }] } : {};
}

/** A label at the first occurrence of `needle` in the schema file (for parser messages that name a token). */
export function labelAtText(origin: SchemaOrigin, needle: string, message: string): ReportExtra {
  if (!origin.file || origin.text === undefined) return {};
  const at = origin.text.indexOf(needle);
  return at < 0 ? {} : { labels: [{ span: new LineMap(origin.text).span(origin.file, at, at + needle.length), message }] };
}

const parsedDocs = new Map<string, YAML.Document.Parsed>();

export function locatePointer(text: string, pointer: string, file: string): Span | null {
  try {
    const path = pointer
      .split('/')
      .slice(1)
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
      .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
    let doc = parsedDocs.get(text);
    if (!doc) {
      doc = YAML.parseDocument(text);
      // One build reads a handful of schema files; keep the last few parsed.
      if (parsedDocs.size > 16) parsedDocs.clear();
      parsedDocs.set(text, doc);
    }
    const node = (path.length ? doc.getIn(path, true) : doc.contents) as { range?: [number, number, number] } | undefined;
    if (!node?.range) return null;
    return new LineMap(text).span(file, node.range[0], node.range[1]);
  } catch {
    return null;
  }
}
