// The `.pipe.sql` front end: text → tokens → one CST per statement → AST (src/syntax/ast.ts).
// Statements are split at `;` (and at a `CREATE` that lacks one) before parsing, so a broken
// statement never hides the next one; every syntax error of the file is reported in one run.
import type { IRecognitionException, IToken, TokenType } from 'chevrotain';
import type { Expr, PipeFile, Query, SourceComment, Statement, Suppression } from '../ast.ts';
import type { FragmentOrigin, FrontEndContext } from '../front-end.ts';
import { IncompleteCst, SpanMaker } from './cst.ts';
import { buildAst } from './ast-builder.ts';
import * as L from '../../../grammar/lexer.ts';
import { pipeParser, RecoveryLimit, type StartRule } from '../../../grammar/parser.ts';
import { firstTooDeepNode, firstTooDeepToken, MAX_NESTING_DEPTH } from '../nesting.ts';
import type { Span } from '../../diagnostics/span.ts';
import { reportParseError, type ParseErrorContext, type TokenIndex } from './parse-errors.ts';

const TOKEN_INDEX: TokenIndex = new Map(L.allTokens.map((t) => [t.name, t] as [string, TokenType]));
const SOFT_WORDS: ReadonlySet<string> = new Set(
  L.allTokens.filter((t) => t.CATEGORIES?.includes(L.IdentCat) && t !== L.Identifier && t !== L.QuotedIdent).map((t) => t.name),
);

interface Lexed {
  tokens: IToken[];
  comments: IToken[];
}

function lex(text: string, spans: SpanMaker): Lexed {
  const r = L.pipeLexer.tokenize(text);
  const bag = spans.ctx.diagnostics;
  for (const e of r.errors) {
    const len = Math.max(1, e.length);
    bag.report('syntax-unexpected-char', spans.range(e.offset, e.offset + len), { char: text.slice(e.offset, e.offset + Math.min(len, 12)) });
  }
  for (const t of r.tokens) {
    // Report, then read as if closed at the end of the line so the statement still parses.
    if (t.tokenType === L.UnterminatedString) {
      bag.report('syntax-unterminated-string', spans.token(t), {});
      t.tokenType = L.StringLit;
      t.tokenTypeIdx = L.StringLit.tokenTypeIdx!;
      t.image += "'";
    } else if (t.tokenType === L.UnterminatedQuotedIdent) {
      bag.report('syntax-unterminated-identifier', spans.token(t), {});
      t.tokenType = L.QuotedIdent;
      t.tokenTypeIdx = L.QuotedIdent.tokenTypeIdx!;
      t.image += '"';
    }
  }
  const comments = (r.groups['comments'] ?? []) as IToken[];
  for (const c of comments) if (c.tokenType === L.UnterminatedComment) bag.report('syntax-unterminated-comment', spans.range(c.startOffset, c.startOffset + 2), {});
  return { tokens: r.tokens, comments };
}

function errorContext(spans: SpanMaker, tokens: IToken[], terminator: IToken | undefined, rule: StartRule): ParseErrorContext {
  return {
    spans,
    tokens,
    terminator,
    index: TOKEN_INDEX,
    softWords: SOFT_WORDS,
    contentAssist: (prefix) => {
      try {
        return pipeParser.computeContentAssist(rule, prefix).map((p) => p.nextTokenType.name);
      } catch {
        return [];
      }
    },
  };
}

/** Parses `tokens` from `rule`; reports its errors; returns the AST or null when unusable. */
function parseRule<T>(rule: StartRule, tokens: IToken[], terminator: IToken | undefined, spans: SpanMaker): { ast: T | null; errors: number } {
  // Too deep for the parser's recursion: refuse before parsing (src/syntax/nesting.ts).
  const deepToken = firstTooDeepToken(tokens);
  if (deepToken) {
    spans.ctx.diagnostics.report('nesting-too-deep', spans.token(deepToken), { limit: MAX_NESTING_DEPTH });
    return { ast: null, errors: 1 };
  }
  pipeParser.input = tokens;
  let cst;
  try {
    cst = pipeParser[rule]();
  } catch (err) {
    if (!(err instanceof RecoveryLimit)) throw err;
    cst = undefined;
  }
  const errors = pipeParser.errors as IRecognitionException[];
  const pc = errorContext(spans, tokens, terminator, rule);
  // Only the first parse error of a statement: later ones are nearly always echoes of the
  // recovery from it. The next statement is parsed on its own and reports its own.
  if (errors[0]) reportParseError(errors[0], pc);
  if (!cst) return { ast: null, errors: errors.length };
  try {
    const ast = buildAst<T>(cst, spans);
    // Flat in the grammar but deep as a tree (NOT NOT ..., a + b + ...): the walkers recurse on it.
    const deep = firstTooDeepNode<Span>(ast);
    if (deep) {
      spans.ctx.diagnostics.report('nesting-too-deep', deep.span ?? spans.range(tokens[0]?.startOffset ?? 0, tokens[0]?.startOffset ?? 0), { limit: MAX_NESTING_DEPTH });
      return { ast: null, errors: errors.length + 1 };
    }
    return { ast, errors: errors.length };
  } catch (err) {
    if (err instanceof IncompleteCst && errors.length > 0) return { ast: null, errors: errors.length };
    spans.ctx.diagnostics.report('internal-error', spans.range(tokens[0]?.startOffset ?? 0, tokens[0]?.startOffset ?? 0), {
      detail: `building the syntax tree: ${err instanceof Error ? err.message : String(err)}`,
    });
    return { ast: null, errors: errors.length };
  }
}

interface Chunk {
  tokens: IToken[];
  terminator: IToken | undefined;
}

/** Splits at `;`; a `CREATE` inside a statement starts a new one (its `;` was forgotten). */
function splitStatements(tokens: IToken[], spans: SpanMaker): Chunk[] {
  const chunks: Chunk[] = [];
  let cur: IToken[] = [];
  for (const t of tokens) {
    if (t.tokenType === L.Semicolon) {
      chunks.push({ tokens: cur, terminator: t });
      cur = [];
      continue;
    }
    if (t.tokenType === L.KW.CREATE && cur.length > 0) {
      spans.ctx.diagnostics.report('syntax-missing-semicolon', spans.token(cur[cur.length - 1]!), {});
      chunks.push({ tokens: cur, terminator: undefined });
      cur = [];
    }
    cur.push(t);
  }
  if (cur.length > 0) {
    spans.ctx.diagnostics.report('syntax-missing-semicolon', spans.token(cur[cur.length - 1]!), {});
    chunks.push({ tokens: cur, terminator: undefined });
  }
  return chunks;
}

const ALLOW = /^--\s*pipec:allow\s+(.*)$/;

function suppressions(comments: IToken[], spans: SpanMaker): Suppression[] {
  const out: Suppression[] = [];
  for (const c of comments) {
    const m = ALLOW.exec(c.image);
    if (!m) continue;
    const listStart = c.startOffset + c.image.length - m[1]!.length;
    for (const cm of m[1]!.matchAll(/[A-Za-z0-9_-]+/g)) {
      const s = listStart + cm.index!;
      out.push({ code: cm[0], span: spans.range(s, s + cm[0].length) });
    }
  }
  return out;
}

/** Parses a whole `.pipe.sql` file. Never throws; problems go to `ctx.diagnostics`. */
export function parsePipeSql(text: string, ctx: FrontEndContext): PipeFile {
  const spans = new SpanMaker(ctx, text, undefined);
  const statements: Statement[] = [];
  let sup: Suppression[] = [];
  let comments: SourceComment[] = [];
  try {
    const lexed = lex(text, spans);
    for (const chunk of splitStatements(lexed.tokens, spans)) {
      if (chunk.tokens.length === 0) continue;
      const r = parseRule<Statement>('statement', chunk.tokens, chunk.terminator, spans);
      if (r.ast) statements.push(r.ast);
    }
    sup = suppressions(lexed.comments, spans);
    comments = lexed.comments.map((c) => ({ text: c.image.replace(/\r$/, ''), span: spans.token(c) }));
  } catch (err) {
    ctx.diagnostics.report('internal-error', spans.range(0, 0), { detail: `parsing: ${err instanceof Error ? err.message : String(err)}` });
  }
  return { file: ctx.file, source: 'sql', statements, suppressions: sup, comments, span: spans.range(0, text.length) };
}

function parseFragment<T>(rule: 'query' | 'expr', text: string, ctx: FrontEndContext, origin: FragmentOrigin | undefined): T | null {
  const spans = new SpanMaker(ctx, text, origin);
  try {
    const before = ctx.diagnostics.errorCount();
    const { tokens } = lex(text, spans);
    const lexOk = ctx.diagnostics.errorCount() === before;
    // A SQL body in YAML may keep the `;` it had in a .pipe.sql file.
    const last = tokens[tokens.length - 1];
    const body = last?.tokenType === L.Semicolon ? tokens.slice(0, -1) : tokens;
    const r = parseRule<T>(rule, body, undefined, spans);
    return lexOk && r.errors === 0 ? r.ast : null;
  } catch (err) {
    ctx.diagnostics.report('internal-error', spans.range(0, 0), { detail: `parsing: ${err instanceof Error ? err.message : String(err)}` });
    return null;
  }
}

/**
 * Parses a query written on its own (a YAML `query:` body). Null after a lexical or syntax
 * error; errors found once the tree is built (a bad type, wrong window arguments) keep the tree.
 */
export function parseSqlQuery(text: string, ctx: FrontEndContext, origin?: FragmentOrigin): Query | null {
  return parseFragment<Query>('query', text, ctx, origin);
}

/** Parses one expression (a YAML watermark or filter); null as for parseSqlQuery. */
export function parseSqlExpr(text: string, ctx: FrontEndContext, origin?: FragmentOrigin): Expr | null {
  return parseFragment<Expr>('expr', text, ctx, origin);
}
