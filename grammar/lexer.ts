// The tokens of `.pipe.sql` and the one Chevrotain lexer built from them (LANGUAGE.md "Files").
// Soft keywords share the IdentCat category so they still work as column names (`key`, `date`).
import { createToken, Lexer, type ILexerConfig, type TokenType } from 'chevrotain';
import { applyLexerHints, type LexerHints } from './lexer-hints.ts';
import lexerHints from './lexer-hints.gen.json' with { type: 'json' };

/** Anything usable as an identifier: plain words, "quoted" names and soft keywords. */
export const IdentCat = createToken({ name: 'IdentCat', pattern: Lexer.NA, label: 'a name' });
/** Any word at all, reserved keywords included: option keys such as `table` or `format`. */
export const AnyWord = createToken({ name: 'AnyWord', pattern: Lexer.NA, label: 'an option name' });

// Operator categories: the expression grammar consumes a category, not each token, which
// keeps expressions shallow and fast (precedence is applied by the visitor).
export const BinOp = createToken({ name: 'BinOp', pattern: Lexer.NA, label: 'an operator' });
export const ArithOp = createToken({ name: 'ArithOp', pattern: Lexer.NA, label: 'an operator' });
export const PrefixOp = createToken({ name: 'PrefixOp', pattern: Lexer.NA, label: "NOT or '-'" });
export const SignOp = createToken({ name: 'SignOp', pattern: Lexer.NA, label: "'-'" });

export const Identifier = createToken({
  name: 'Identifier',
  pattern: /[A-Za-z_][A-Za-z0-9_$]*/,
  categories: [IdentCat, AnyWord],
  label: 'a name',
});
export const QuotedIdent = createToken({
  name: 'QuotedIdent',
  pattern: /"(?:[^"\n\r]|"")*"/,
  categories: [IdentCat, AnyWord],
  label: 'a name',
});

// Keywords that can never be names: they end or join clauses, so an unquoted name there would
// make the grammar ambiguous (`FROM orders EMIT CHANGES` must not read EMIT as an alias).
const RESERVED = [
  'SELECT', 'FROM', 'WHERE', 'GROUP', 'BY', 'HAVING', 'UNION', 'ALL', 'JOIN', 'INNER', 'LEFT', 'OUTER',
  'ON', 'AS', 'AND', 'OR', 'NOT', 'NULL', 'TRUE', 'FALSE', 'CASE', 'WHEN', 'THEN', 'ELSE', 'END',
  'IS', 'IN', 'BETWEEN', 'LIKE', 'CREATE', 'WITH', 'EMIT', 'ALLOWED', 'DISTINCT', 'FOR', 'CAST',
  'EXTRACT', 'INTERVAL', 'TABLE', 'DESCRIPTOR', 'TO', 'BOTH', 'LEADING', 'TRAILING',
] as const;

// Words the grammar needs but that remain valid names everywhere they cannot be confused.
const SOFT = [
  'PIPELINE', 'SOURCE', 'VIEW', 'SINK', 'CATALOG', 'COMPACTION', 'POLICY', 'METADATA', 'WATERMARK',
  'PRIMARY', 'KEY', 'ENFORCED', 'CHANGES', 'WINDOW', 'CLOSE', 'LATENESS', 'LATE', 'DROP', 'REWRITE',
  'DATA', 'FILES', 'DELETE', 'TARGET', 'MIN', 'INPUT', 'EXPIRE', 'SNAPSHOTS', 'OLDER', 'THAN',
  'RETAIN', 'LAST', 'REMOVE', 'ORPHAN', 'SCHEDULE', 'EVERY', 'PERCENT', 'TUMBLE', 'HOP', 'CUMULATE',
  'SESSION', 'TIMESTAMP', 'DATE', 'SYSTEM_TIME', 'OF', 'PARTITION',
  // Not in the language: tokens only so that `FROM t LIMIT 10` can say "LIMIT is not
  // supported" instead of reading LIMIT as an alias of t (see NOT_AN_ALIAS). Still names.
  'ORDER', 'LIMIT', 'RIGHT', 'FULL', 'CROSS', 'OVER',
] as const;

type ReservedWord = (typeof RESERVED)[number];
type SoftWord = (typeof SOFT)[number];
export type KeywordName = ReservedWord | SoftWord;

const KEYWORD_OPERATORS: Record<string, TokenType[]> = { AND: [BinOp], OR: [BinOp], NOT: [PrefixOp] };

/** How "expected ..." messages name a keyword that only ever starts a longer phrase. */
const KEYWORD_LABELS: Record<string, string> = {
  GROUP: 'GROUP BY', UNION: 'UNION ALL', ALLOWED: 'ALLOWED LATENESS', PRIMARY: 'PRIMARY KEY', SCHEDULE: 'SCHEDULE EVERY',
};

// A keyword's categories are set on the token after createToken, not passed to it: createToken
// rebuilds the match list of every category it is given, so ~100 keywords in AnyWord cost
// O(n²) (~15 ms of a cold start). The Lexer built at the end of this file (like any Lexer or
// parser given these tokens) completes the category maps of all tokens in one pass, before
// anything imports them (test/unit/grammar/lexer-categories.test.ts holds the result).
function keyword(word: string, soft: boolean): TokenType {
  const token = createToken({ name: word, pattern: new RegExp(word, 'i'), longer_alt: Identifier, label: KEYWORD_LABELS[word] ?? word });
  token.CATEGORIES = [...(soft ? [IdentCat, AnyWord] : [AnyWord]), ...(KEYWORD_OPERATORS[word] ?? [])];
  return token;
}

/** Keyword token types by upper-case word. */
export const KW = {} as Record<KeywordName, TokenType>;
for (const w of RESERVED) KW[w] = keyword(w, false);
for (const w of SOFT) KW[w] = keyword(w, true);

/** Words that end a FROM item or select item instead of naming it, unless written after AS. */
export const NOT_AN_ALIAS: ReadonlySet<TokenType> = new Set(['ORDER', 'LIMIT', 'RIGHT', 'FULL', 'CROSS', 'OVER'].map((w) => KW[w as KeywordName]));

export const RESERVED_WORDS: ReadonlySet<string> = new Set(RESERVED.map((w) => w.toLowerCase()));

export const StringLit = createToken({ name: 'StringLit', pattern: /'(?:[^'\n\r]|'')*'/, label: 'a string' });
/**
 * A quote with no closing quote on its line, lexed so the parser can go on and we can say so.
 * It stops before the line's trailing `)`, `,` and `;`: `topic = 'orders);` most likely meant
 * `'orders');`, and swallowing the `;` would merge two statements.
 */
function unterminated(quote: string) {
  return {
    exec: (text: string, offset: number): RegExpExecArray | null => {
      if (text[offset] !== quote) return null;
      let eol = offset + 1;
      while (eol < text.length && text[eol] !== '\n' && text[eol] !== '\r') eol++;
      let end = eol;
      while (end > offset + 1 && /[\s),;]/.test(text[end - 1]!)) end--;
      return [text.slice(offset, end)] as unknown as RegExpExecArray;
    },
  };
}

export const UnterminatedString = createToken({
  name: 'UnterminatedString',
  pattern: unterminated("'"),
  start_chars_hint: ["'"],
  line_breaks: false,
  label: 'a string',
});
export const UnterminatedQuotedIdent = createToken({
  name: 'UnterminatedQuotedIdent',
  pattern: unterminated('"'),
  start_chars_hint: ['"'],
  line_breaks: false,
  label: 'a name',
});
export const NumberLit = createToken({
  name: 'NumberLit',
  pattern: /(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/,
  label: 'a number',
});

export const WhiteSpace = createToken({ name: 'WhiteSpace', pattern: /\s+/, group: Lexer.SKIPPED });
export const LineComment = createToken({ name: 'LineComment', pattern: /--[^\n\r]*/, group: 'comments' });
export const BlockComment = createToken({ name: 'BlockComment', pattern: /\/\*[\s\S]*?\*\//, group: 'comments' });
export const UnterminatedComment = createToken({ name: 'UnterminatedComment', pattern: /\/\*[\s\S]*/, group: 'comments' });

export const LParen = createToken({ name: 'LParen', pattern: '(', label: "'('" });
export const RParen = createToken({ name: 'RParen', pattern: ')', label: "')'" });
export const Comma = createToken({ name: 'Comma', pattern: ',', label: "','" });
export const Semicolon = createToken({ name: 'Semicolon', pattern: ';', label: "';'" });
export const Dot = createToken({ name: 'Dot', pattern: '.', label: "'.'" });
export const Star = createToken({ name: 'Star', pattern: '*', categories: [BinOp, ArithOp], label: "'*'" });
export const Plus = createToken({ name: 'Plus', pattern: '+', categories: [BinOp, ArithOp, PrefixOp, SignOp], label: "'+'" });
export const Minus = createToken({ name: 'Minus', pattern: '-', categories: [BinOp, ArithOp, PrefixOp, SignOp], label: "'-'" });
export const Slash = createToken({ name: 'Slash', pattern: '/', categories: [BinOp, ArithOp], label: "'/'" });
export const Percent = createToken({ name: 'PercentSign', pattern: '%', categories: [BinOp, ArithOp], label: "'%'" });
export const Concat = createToken({ name: 'Concat', pattern: '||', categories: [BinOp, ArithOp], label: "'||'" });
export const DoubleEq = createToken({ name: 'DoubleEq', pattern: '==', categories: [BinOp], label: "'='" });
export const Eq = createToken({ name: 'Eq', pattern: '=', categories: [BinOp], label: "'='" });
export const NotEq = createToken({ name: 'NotEq', pattern: /<>|!=/, categories: [BinOp], label: "'<>'" });
export const LtEq = createToken({ name: 'LtEq', pattern: '<=', categories: [BinOp], label: "'<='" });
export const GtEq = createToken({ name: 'GtEq', pattern: '>=', categories: [BinOp], label: "'>='" });
export const Lt = createToken({ name: 'Lt', pattern: '<', categories: [BinOp], label: "'<'" });
export const Gt = createToken({ name: 'Gt', pattern: '>', categories: [BinOp], label: "'>'" });

// Longer keywords first: with `IN` before `INNER`, "inner" would lex as IN + longer_alt Identifier.
const keywordTokens = Object.values(KW).sort((a, b) => String(b.PATTERN).length - String(a.PATTERN).length);

export const allTokens: TokenType[] = [
  WhiteSpace,
  LineComment,
  BlockComment,
  UnterminatedComment,
  StringLit,
  UnterminatedString,
  QuotedIdent,
  UnterminatedQuotedIdent,
  NumberLit,
  Concat,
  DoubleEq,
  NotEq,
  LtEq,
  GtEq,
  Lt,
  Gt,
  Eq,
  LParen,
  RParen,
  Comma,
  Semicolon,
  Dot,
  Star,
  Plus,
  Minus,
  Slash,
  Percent,
  ...keywordTokens,
  Identifier,
  IdentCat,
  AnyWord,
  BinOp,
  ArithOp,
  PrefixOp,
  SignOp,
];

// Token definitions are checked by the grammar tests; skipping the checks at start-up saves ~50 ms of cold start.
export const LEXER_CONFIG: ILexerConfig = { positionTracking: 'full', ensureOptimizations: false, skipValidations: true };
// The token analysis comes from the table `npm run build` writes (lexer-hints.ts): start-up time.
applyLexerHints(allTokens, lexerHints as LexerHints);
export const pipeLexer = new Lexer(allTokens, LEXER_CONFIG);
