// How deep a spec may nest (docs/security.md "Compiler limits"). The parser, the AST builder
// and every tree walker after them (checker, optimizer, printers, fmt, codegen) recurse, so a
// spec nested thousands of levels deep would exhaust the stack. The front ends stop it here
// with a coded `nesting-too-deep` instead: the walkers never see a tree deeper than the limit.
//
// Two measures, both cheap and iterative:
// - brackets in the token stream (`(`, `CASE ... END`, `ARRAY<`/`MAP<`/`ROW<`), checked before
//   parsing, because the parser itself recurses once per bracket (with ~10 frames each);
// - the depth of the built syntax tree, which also counts what the parser reads flat: runs of
//   prefix `NOT`/`-` and chains of binary operators (`a + b + c` is a left-deep tree).
// Every stage was measured to survive depth 1,000 (the parser: 500 brackets); 256 leaves a margin
// of 2–8× for callers that start deeper in the stack (`pipec run`, tests).

export const MAX_NESTING_DEPTH = 256;

/** What the token pre-check needs of a token (Chevrotain's IToken has these). */
export interface NestToken {
  image: string;
  startOffset: number;
  tokenType: { name: string };
}

const TYPE_WORDS = new Set(['ARRAY', 'MAP', 'ROW']);

/**
 * The first token at which bracket nesting goes past `limit`, or null. Unbalanced closers are
 * ignored (the parser reports them); a `>` closes a type bracket only while one is open, so
 * comparisons do not count.
 */
export function firstTooDeepToken<T extends NestToken>(tokens: readonly T[], limit = MAX_NESTING_DEPTH): T | null {
  let parens = 0;
  let cases = 0;
  let angles = 0;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    const name = t.tokenType.name;
    if (name === 'LParen') parens++;
    else if (name === 'RParen') parens = Math.max(0, parens - 1);
    else if (name === 'CASE') cases++;
    else if (name === 'END') cases = Math.max(0, cases - 1);
    else if (name === 'Lt' && i > 0 && TYPE_WORDS.has(tokens[i - 1]!.image.toUpperCase())) angles++;
    else if (name === 'Gt' && angles > 0) angles--;
    else continue;
    if (parens + cases + angles > limit) return t;
  }
  return null;
}

/** A node of the syntax tree deeper than the limit: the span of it (or of its nearest ancestor with one). */
export interface TooDeep<S> {
  span: S | null;
  depth: number;
}

/**
 * The first node (in a depth-first walk) at depth `limit + 1`, counting only objects with a
 * `kind` (expressions, types, clauses): spans and lists do not add a level. Iterative, so it
 * works on any tree the builder made.
 */
export function firstTooDeepNode<S = unknown>(root: unknown, limit = MAX_NESTING_DEPTH): TooDeep<S> | null {
  const stack: [unknown, number, S | null][] = [[root, 0, null]];
  while (stack.length > 0) {
    const [v, d, outerSpan] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], d, outerSpan]);
      continue;
    }
    const isNode = typeof (v as { kind?: unknown }).kind === 'string';
    const depth = isNode ? d + 1 : d;
    const span = ((v as { span?: S }).span ?? outerSpan) as S | null;
    if (depth > limit) return { span, depth };
    // (for-in over the tree's plain objects: no entries array per node; this walk runs on
    // every statement of every spec.)
    const o = v as Record<string, unknown>;
    for (const k in o) {
      if (k === 'span' || k === 'typeSpan' || !Object.hasOwn(o, k)) continue;
      const child = o[k];
      if (child !== null && typeof child === 'object') stack.push([child, depth, span]);
    }
  }
  return null;
}
