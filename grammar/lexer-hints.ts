// The lexer's token analysis, computed at build time instead of at start-up. Building a
// Chevrotain Lexer parses every RegExp token pattern (regexp-to-ast) twice: for the characters a
// match can start with (the first-character dispatch table) and for whether it can match a line
// break (line/column tracking). Chevrotain takes both as per-token hints (`start_chars_hint`,
// `line_breaks`) and then skips the analysis; `computeLexerHints` reads what its own analysis
// produced from a Lexer built without hints, `npm run build` (scripts/lookahead-table.mjs) writes
// it to lexer-hints.gen.json, and test/unit/grammar/lexer-hints.test.ts fails when the file no
// longer matches the tokens (and checks the hinted lexer tokenizes exactly as an unhinted one).
// Only RegExp patterns are hinted; string and custom patterns keep what lexer.ts gives them.
import { Lexer, type ILexerConfig, type TokenType } from 'chevrotain';

/** Per token name: whether a match can hold a line break, and its start characters as char codes. */
export interface LexerHints {
  [token: string]: { lineBreaks: boolean; startChars: number[] };
}

type Hinted = TokenType & { PATTERN?: unknown; LINE_BREAKS?: boolean; START_CHARS_HINT?: number[] };

/** The tokens the table covers: RegExp patterns (Lexer.NA, a RegExp too, marks categories). */
const hintable = (tokens: TokenType[]): Hinted[] => (tokens as Hinted[]).filter((t) => t.PATTERN instanceof RegExp && t.PATTERN !== Lexer.NA);

/**
 * Chevrotain's own analysis of `tokens` under `config`, as hints. The hints already applied to
 * the hintable tokens are set aside while the analysis runs (and put back).
 */
export function computeLexerHints(tokens: TokenType[], config: ILexerConfig): LexerHints {
  const saved = hintable(tokens).map((t) => [t, t.LINE_BREAKS, t.START_CHARS_HINT] as const);
  for (const [t] of saved) {
    delete t.LINE_BREAKS;
    delete t.START_CHARS_HINT;
  }
  try {
    const lexer = new Lexer(tokens, config) as unknown as {
      patternIdxToConfig: { defaultMode: { tokenType: TokenType; canLineTerminator: boolean }[] };
      charCodeToPatternIdxToConfig: { defaultMode: ({ tokenType: TokenType }[] | undefined)[] };
      canModeBeOptimized: { defaultMode: boolean };
    };
    if (!lexer.canModeBeOptimized.defaultMode) throw new Error('pipec: the lexer has a token Chevrotain cannot dispatch by first character');
    const out: LexerHints = {};
    const byToken = new Map<TokenType, { lineBreaks: boolean; startChars: number[] }>();
    for (const c of lexer.patternIdxToConfig.defaultMode) {
      if (!saved.some(([t]) => t === c.tokenType)) continue;
      const h = { lineBreaks: c.canLineTerminator, startChars: [] as number[] };
      byToken.set(c.tokenType, h);
      out[c.tokenType.name] = h;
    }
    // The dispatch table is indexed by Chevrotain's "optimized index": the char code below 256,
    // one bucket per 255 codes above. A char code of each bucket stands for it.
    lexer.charCodeToPatternIdxToConfig.defaultMode.forEach((configs, idx) => {
      for (const c of configs ?? []) byToken.get(c.tokenType)?.startChars.push(idx < 256 ? idx : Math.max(256, (idx - 255) * 255));
    });
    return out;
  } finally {
    for (const [t, lb, sc] of saved) {
      if (lb !== undefined) t.LINE_BREAKS = lb;
      if (sc !== undefined) t.START_CHARS_HINT = sc;
    }
  }
}

/** Sets the hints on the tokens the table names (a token it lacks is analysed by Chevrotain). */
export function applyLexerHints(tokens: TokenType[], hints: LexerHints): void {
  for (const t of hintable(tokens)) {
    const h = hints[t.name];
    if (!h) continue;
    t.LINE_BREAKS = h.lineBreaks;
    t.START_CHARS_HINT = h.startChars;
  }
}

/** The table as lexer-hints.gen.json holds it: one token a line, so a token change diffs readably. */
export function lexerHintsText(hints: LexerHints): string {
  const names = Object.keys(hints).sort();
  return `{\n${names.map((n) => `  ${JSON.stringify(n)}: ${JSON.stringify(hints[n])}`).join(',\n')}\n}\n`;
}
