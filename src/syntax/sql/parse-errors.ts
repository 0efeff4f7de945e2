// Turns Chevrotain's recognition errors into coded diagnostics with the expected tokens in
// human words ("expected ')' or ','"), plus targeted messages for common slips.
import type { IRecognitionException, IToken, TokenType } from 'chevrotain';
import { EOF } from 'chevrotain';
import type { Span } from '../../diagnostics/span.ts';
import type { SpanMaker } from './cst.ts';

/** Tokens that continue an expression: all shown as "an operator" when an operator may follow. */
const CONTINUATIONS = new Set(['BinOp', 'ArithOp', 'IS', 'NOT', 'IN', 'BETWEEN', 'LIKE', 'AND', 'OR']);
/** After a name, '(' (a call) and '.' (a qualifier) are legal but almost never the fix. */
const AFTER_NAME = new Set(['LParen', 'Dot']);
const EXPR_STARTS = new Set([
  'NumberLit', 'StringLit', 'TRUE', 'FALSE', 'NULL', 'INTERVAL', 'CASE', 'CAST', 'EXTRACT', 'LParen', 'Minus', 'Plus',
  'NOT', 'PrefixOp', 'SignOp', 'IdentCat', 'TIMESTAMP', 'DATE',
]);
const NAME_TOKENS = new Set(['IdentCat', 'AnyWord', 'Identifier', 'QuotedIdent']);

/** Every keyword, punctuation and literal type by name, to look up labels. */
export type TokenIndex = ReadonlyMap<string, TokenType>;

export function describeExpected(names: Iterable<string>, index: TokenIndex, softWords: ReadonlySet<string>): string {
  const set = new Set(names);
  set.delete('EOF');
  const parts: string[] = [];
  const exprStart = set.has('IdentCat') && set.has('NumberLit');
  const opFollows = set.has('BinOp');
  let sawOperator = false;
  let sawExpr = false;
  let sawName = false;
  for (const name of set) {
    if (exprStart && EXPR_STARTS.has(name)) {
      sawExpr = true;
      continue;
    }
    if (opFollows && (CONTINUATIONS.has(name) || AFTER_NAME.has(name))) {
      sawOperator ||= CONTINUATIONS.has(name);
      continue;
    }
    // A soft keyword is also a name: listing both would be noise when a name is expected.
    if (set.has('IdentCat') && softWords.has(name)) continue;
    if (NAME_TOKENS.has(name)) {
      sawName = true;
      continue;
    }
    const label = index.get(name)?.LABEL ?? name;
    if (!parts.includes(label)) parts.push(label);
  }
  if (sawName) parts.push(set.has('AnyWord') && !set.has('IdentCat') ? 'an option name' : 'a name');
  if (sawExpr) parts.push('an expression');
  if (sawOperator) parts.push('an operator');
  // Closers first: "expected ')' or ','" reads better than a list that ends in them.
  const rank = (p: string): number => (p === "')'" ? 0 : p === "','" ? 1 : 2);
  parts.sort((a, b) => rank(a) - rank(b));
  if (parts.length === 0) return "';'";
  if (parts.length === 1) return parts[0]!;
  return `${parts.slice(0, -1).join(', ')} or ${parts[parts.length - 1]}`;
}

export function describeFound(t: IToken): string {
  if (t.tokenType === EOF) return 'the end of the statement';
  const img = t.image.length > 24 ? `${t.image.slice(0, 21)}...` : t.image;
  switch (t.tokenType.name) {
    case 'StringLit':
      return `the string ${img}`;
    case 'NumberLit':
      return `the number ${img}`;
    case 'Semicolon':
      return `';'`;
    default:
      return `'${img}'`;
  }
}

export interface ParseErrorContext {
  spans: SpanMaker;
  /** Tokens of the statement (or fragment) that was parsed. */
  tokens: IToken[];
  /** The `;` that ended the statement, to point at when the statement ended too early. */
  terminator: IToken | undefined;
  /** Expected token names after a prefix of `tokens`; empty when unknown. */
  contentAssist(prefix: IToken[]): string[];
  index: TokenIndex;
  softWords: ReadonlySet<string>;
}

const UNSUPPORTED: Record<string, { what: string; instead: string }> = {
  ORDER: { what: 'ORDER BY', instead: 'a stream has no order to sort by; sort in the sink (e.g. order_by of a ClickHouse sink)' },
  LIMIT: { what: 'LIMIT', instead: 'a stream has no end to count to; filter with WHERE instead' },
  RIGHT: { what: 'RIGHT JOIN', instead: 'swap the two sides and write LEFT JOIN' },
  FULL: { what: 'FULL JOIN', instead: 'use LEFT JOIN, or UNION ALL of two LEFT JOINs' },
  CROSS: { what: 'CROSS JOIN', instead: 'write a JOIN ... ON with the condition that relates the two sides' },
  OVER: { what: 'OVER (...) window aggregates', instead: 'aggregate over a window table function: FROM TUMBLE(...) GROUP BY window_start, ...' },
};

/** Reports the first parser error of a statement (or fragment) as a coded diagnostic. */
export function reportParseError(e: IRecognitionException, pc: ParseErrorContext): void {
  const bag = pc.spans.ctx.diagnostics;
  const atEnd = e.token.tokenType === EOF || !Number.isFinite(e.token.startOffset);
  const idx = atEnd ? pc.tokens.length : pc.tokens.findIndex((t) => t.startOffset === e.token.startOffset);
  const prev = idx > 0 ? pc.tokens[idx - 1] : undefined;
  const span = atEnd ? endSpan(pc) : pc.spans.token(e.token);
  if (prev && prev.tokenType.name === 'Comma' && !atEnd && ['RParen', 'Gt', 'FROM'].includes(e.token.tokenType.name)) {
    bag.report('syntax-trailing-comma', pc.spans.token(prev), { closer: e.token.image.toUpperCase() });
    return;
  }
  const unsupported = UNSUPPORTED[e.token.tokenType.name];
  if (unsupported && !atEnd) {
    bag.report('syntax-unsupported', span, unsupported);
    return;
  }
  if (!atEnd && prev?.tokenType.name === 'INTERVAL' && e.token.tokenType.name === 'NumberLit') {
    bag.report('syntax-interval-unquoted', span, { number: e.token.image });
    return;
  }
  let expected: string[] = [];
  if (idx >= 0) expected = pc.contentAssist(pc.tokens.slice(0, idx));
  if (expected.length === 0) {
    try {
      expected = JSON.parse(e.message) as string[];
    } catch {
      expected = [];
    }
  }
  if (e.name === 'NotAllInputParsedException') expected.push('Semicolon');
  if (!atEnd && e.token.tokenType.name === 'QuotedIdent' && expected.includes('StringLit')) {
    bag.report('syntax-double-quoted-string', span, { text: e.token.image });
    return;
  }
  // `format = json`: an option value that is a bare word.
  if (!atEnd && e.token.tokenType.name === 'Identifier' && expected.includes('StringLit') && expected.includes('TRUE')) {
    bag.report('syntax-unquoted-option-value', span, { word: e.token.image });
    return;
  }
  if (!atEnd && e.token.tokenType.name === 'Comma' && expected.includes('JOIN')) {
    bag.report('syntax-unsupported', span, { what: 'a comma join (FROM a, b)', instead: 'write a JOIN ... ON with the condition that relates the two sides' });
    return;
  }
  if (idx >= 0) expected = dropForeignCallForms(expected, pc.tokens.slice(0, idx));
  bag.report('syntax-error', span, { expected: describeExpected(expected, pc.index, pc.softWords), found: describeFound(e.token) });
}

/** Where "the statement ended" points: its `;`, else just after its last token. */
function endSpan(pc: ParseErrorContext): Span {
  if (pc.terminator) return pc.spans.token(pc.terminator);
  const last = pc.tokens[pc.tokens.length - 1];
  if (!last) return pc.spans.range(0, 0);
  const end = (last.endOffset ?? last.startOffset) + 1;
  return pc.spans.range(end, end);
}

const KEYWORD_FORMS: Record<string, string[]> = { TO: ['floor', 'ceil'], FROM: ['substring', 'trim', 'extract'], FOR: ['substring'] };

/** `x TO unit` and `s FROM a` are legal in every call to the grammar, but only FLOOR, SUBSTRING... use them. */
function dropForeignCallForms(expected: string[], prefix: IToken[]): string[] {
  // Only the call-argument continuation offers TO; elsewhere FROM is the SELECT's or METADATA's.
  if (!expected.includes('TO')) return expected;
  let depth = 0;
  let fn: string | null = null;
  for (let i = prefix.length - 1; i >= 0; i--) {
    const n = prefix[i]!.tokenType.name;
    if (n === 'RParen') depth++;
    else if (n === 'LParen') {
      if (depth === 0) {
        fn = prefix[i - 1]?.image.toLowerCase() ?? null;
        break;
      }
      depth--;
    }
  }
  return expected.filter((name) => {
    const owners = KEYWORD_FORMS[name];
    return !owners || (fn !== null && owners.includes(fn));
  });
}
