// Helpers for reading Chevrotain CST children and turning token offsets into spans of the
// user's file (directly, or through a FragmentOrigin for SQL embedded in YAML).
import type { CstElement, CstNode, IToken } from 'chevrotain';
import type { Span } from '../../diagnostics/span.ts';
import { LineMap } from '../../diagnostics/span.ts';
import type { FragmentOrigin, FrontEndContext } from '../front-end.ts';
import type { Ident } from '../ast.ts';

export type Children = Record<string, CstElement[] | undefined>;

/**
 * Thrown when error recovery left a CST node without a part the AST needs. The parser has
 * already reported the syntax error, so the statement is dropped silently.
 */
export class IncompleteCst extends Error {}

export function isToken(e: CstElement | undefined): e is IToken {
  return e !== undefined && 'image' in e;
}

export function tok(c: Children, key: string, i = 0): IToken | undefined {
  const e = c[key]?.[i];
  return isToken(e) && !e.isInsertedInRecovery ? e : undefined;
}

export function toks(c: Children, key: string): IToken[] {
  return (c[key] ?? []).filter((e): e is IToken => isToken(e) && !e.isInsertedInRecovery);
}

export function node(c: Children, key: string, i = 0): CstNode | undefined {
  const e = c[key]?.[i];
  return e !== undefined && !isToken(e) ? e : undefined;
}

export function nodes(c: Children, key: string): CstNode[] {
  return (c[key] ?? []).filter((e): e is CstNode => !isToken(e));
}

export function need<T>(x: T | undefined | null): T {
  if (x === undefined || x === null) throw new IncompleteCst('incomplete CST');
  return x;
}

/** Where the text being built lives: spans are always in the user's file. */
export class SpanMaker {
  private readonly lineMap: LineMap;
  constructor(
    readonly ctx: FrontEndContext,
    text: string,
    private readonly origin: FragmentOrigin | undefined,
  ) {
    this.lineMap = origin ? origin.lineMap : new LineMap(text);
  }

  /** Span of the fragment range [start, end). */
  range(start: number, end: number): Span {
    if (!Number.isFinite(start) || !Number.isFinite(end)) throw new IncompleteCst('recovered node');
    if (!this.origin) return this.lineMap.span(this.ctx.file, start, end);
    const s = this.origin.mapOffset(start);
    const e = end > start ? this.origin.mapOffset(end - 1) + 1 : s;
    return this.lineMap.span(this.ctx.file, s, e);
  }

  token(t: IToken): Span {
    return this.range(t.startOffset, (t.endOffset ?? t.startOffset) + 1);
  }

  node(n: CstNode): Span {
    const loc = n.location;
    if (!loc) throw new IncompleteCst('no location');
    return this.range(loc.startOffset, (loc.endOffset ?? loc.startOffset) + 1);
  }

  /** From the start of a to the end of b. */
  between(a: IToken | CstNode, b: IToken | CstNode): Span {
    const s = isToken(a) ? a.startOffset : (a.location?.startOffset ?? NaN);
    const e = isToken(b) ? (b.endOffset ?? NaN) : (b.location?.endOffset ?? NaN);
    return this.range(s, e + 1);
  }
}

/** `"Quoted"` keeps case (`""` is a quote); anything else folds to lower case. */
export function identFromToken(t: IToken, spans: SpanMaker): Ident {
  const img = t.image;
  if (img.startsWith('"')) {
    const span = spans.token(t);
    if (img.includes('\0')) spans.ctx.diagnostics.report('name-nul-character', span, {});
    // As in YAML (src/syntax/yaml/names.ts), so every name has a spelling in both forms.
    if (img === '""') spans.ctx.diagnostics.report('name-empty', span, {});
    return { name: img.slice(1, -1).replace(/""/g, '"'), quoted: true, span };
  }
  return { name: img.toLowerCase(), quoted: false, span: spans.token(t) };
}

/** The content of a '...' literal, with '' turned back into one quote. */
export function unquoteString(image: string): string {
  return image.slice(1, -1).replace(/''/g, "'");
}

/** The identifier token under `key` (the grammar consumes names as tokens, not sub-rules). */
export function identAt(c: Children, key: string, spans: SpanMaker, i = 0): Ident {
  return identFromToken(need(tok(c, key, i)), spans);
}

export function optIdentAt(c: Children, key: string, spans: SpanMaker): Ident | null {
  const t = tok(c, key);
  return t ? identFromToken(t, spans) : null;
}

export function identsAt(c: Children, key: string, spans: SpanMaker): Ident[] {
  return toks(c, key).map((t) => identFromToken(t, spans));
}
