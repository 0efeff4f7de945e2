// The lexer's precomputed token analysis (grammar/lexer-hints.ts): the committed
// lexer-hints.gen.json is the analysis of the tokens as they are now (a token change without
// `npm run build` fails here), the hinted lexer has the same first-character dispatch and line
// tracking as one Chevrotain analysed itself, and it tokenizes every spec, fixture and random
// text (unicode spaces and letters included) exactly as that one does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Lexer, type IToken, type TokenType } from 'chevrotain';
import { allTokens, LEXER_CONFIG, pipeLexer } from '../../../grammar/lexer.ts';
import { computeLexerHints, lexerHintsText } from '../../../grammar/lexer-hints.ts';
import { prng } from '../../support/prng.ts';
import { fixture, FIXTURE_NAMES } from './helpers.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');

test('lexer-hints.gen.json is the analysis of the current tokens (run `npm run build` after a token change)', () => {
  assert.equal(readFileSync(join(ROOT, 'grammar', 'lexer-hints.gen.json'), 'utf8'), lexerHintsText(computeLexerHints(allTokens, LEXER_CONFIG)));
});

/** A lexer built while the RegExp tokens carry no hints: Chevrotain's own analysis. */
function unhintedLexer(): Lexer {
  type T = TokenType & { PATTERN?: unknown; LINE_BREAKS?: boolean; START_CHARS_HINT?: unknown };
  const regex = (allTokens as T[]).filter((t) => t.PATTERN instanceof RegExp && t.PATTERN !== Lexer.NA);
  const saved = regex.map((t) => [t, t.LINE_BREAKS, t.START_CHARS_HINT] as const);
  for (const t of regex) {
    delete t.LINE_BREAKS;
    delete t.START_CHARS_HINT;
  }
  try {
    return new Lexer(allTokens, LEXER_CONFIG);
  } finally {
    for (const [t, lb, sc] of saved) Object.assign(t, { LINE_BREAKS: lb, START_CHARS_HINT: sc });
  }
}

type Internals = {
  patternIdxToConfig: { defaultMode: { tokenType: TokenType; canLineTerminator: boolean }[] };
  charCodeToPatternIdxToConfig: { defaultMode: ({ tokenType: TokenType }[] | undefined)[] };
  canModeBeOptimized: { defaultMode: boolean };
};

test('the hinted lexer dispatches and tracks lines as the unhinted one', () => {
  const own = unhintedLexer() as unknown as Internals;
  const hinted = pipeLexer as unknown as Internals;
  assert.equal(hinted.canModeBeOptimized.defaultMode, true);
  const names = (l: Internals) => l.charCodeToPatternIdxToConfig.defaultMode.map((cs) => (cs ?? []).map((c) => c.tokenType.name));
  assert.deepEqual(names(hinted), names(own));
  const breaks = (l: Internals) => l.patternIdxToConfig.defaultMode.map((c) => `${c.tokenType.name}:${c.canLineTerminator}`);
  assert.deepEqual(breaks(hinted), breaks(own));
});

const shown = (tokens: IToken[]) => tokens.map((t) => `${t.tokenType.name}@${t.startOffset}-${t.endOffset}:${t.startLine}.${t.startColumn}-${t.endLine}.${t.endColumn}:${t.image}`);

test('the hinted lexer tokenizes specs, fixtures and random text exactly as the unhinted one', () => {
  const own = unhintedLexer();
  const texts = [...FIXTURE_NAMES.map(fixture)];
  for (const dir of ['specs', join('test', 'fixtures', 'yaml')]) {
    for (const f of readdirSync(join(ROOT, dir))) if (f.endsWith('.pipe.sql')) texts.push(readFileSync(join(ROOT, dir, f), 'utf8'));
  }
  const r = prng(145);
  const pieces = ['SELECT', 'select', 'from', 'x_1', '"q""n"', "'s''t'", "'open", '"open', '-- c\n', '/* b\n */', '/* open', '1.5e3', '.5', '<>', '!=', '<=', '||', '==', ' ', '\n', '\r\n', '\t', '\u00a0', '\u1680', '\u2028', '\u3000', '\ufeff', 'é', 'ß', 'ключ', '日本', '😀', '$', '#', '@', '?', '\\', ';', ',', '(', ')'];
  for (let i = 0; i < 400; i++) texts.push(Array.from({ length: 5 + Math.floor(r() * 30) }, () => pieces[Math.floor(r() * pieces.length)]).join(''));
  for (const text of texts) {
    const a = pipeLexer.tokenize(text);
    const b = own.tokenize(text);
    assert.deepEqual(shown(a.tokens), shown(b.tokens), text);
    assert.deepEqual(shown(a.groups.comments ?? []), shown(b.groups.comments ?? []), text);
    assert.deepEqual(a.errors.map((e) => `${e.offset}:${e.length}`), b.errors.map((e) => `${e.offset}:${e.length}`), text);
  }
});
