// The precomputed lookahead table (grammar/lookahead-table.ts): the committed
// lookahead-table.gen.json is the table of the grammar as it is now (a grammar change without
// `npm run build` fails here), an entry it cannot use is not used, and a parser using the table reads every fixture, spec and mutated (broken) text exactly as Chevrotain's own
// LL(k) strategy does: the same CST, the same errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CstParser, Lexer, createToken, type CstElement, type CstNode, type ILookaheadStrategy, type IToken } from 'chevrotain';
import { MAX_LOOKAHEAD, PipeSqlParser, pipeParser } from '../../../grammar/parser.ts';
import { computeLookaheadTable, lookaheadTableText, PrecomputedLookaheadStrategy, type LookaheadTable } from '../../../grammar/lookahead-table.ts';
import { pipeLexer } from '../../../grammar/lexer.ts';
import { prng } from '../../support/prng.ts';
import { fixture, FIXTURE_NAMES } from './helpers.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const TABLE_FILE = join(ROOT, 'grammar', 'lookahead-table.gen.json');

test('lookahead-table.gen.json is the table of the current grammar (run `npm run build` after a grammar change)', () => {
  const fresh = lookaheadTableText(computeLookaheadTable(pipeParser.getGAstProductions(), MAX_LOOKAHEAD));
  assert.equal(readFileSync(TABLE_FILE, 'utf8'), fresh);
});

test('an entry the parser cannot use (other k, unknown token) falls back to Chevrotain’s own lookahead', () => {
  const table = JSON.parse(readFileSync(TABLE_FILE, 'utf8')) as LookaheadTable;
  assert.ok(Object.keys(table).length > 50, 'the table covers the grammar');
  const broken: LookaheadTable = {};
  for (const [key, entry] of Object.entries(table)) broken[key] = key.length % 2 ? { ...entry, k: entry.k + 1 } : { k: entry.k, alts: entry.alts.map((alt) => alt.map((path) => path.map((t) => `${t}_renamed`))) };
  const spec = readFileSync(join(ROOT, 'specs', 'quickstart.pipe.sql'), 'utf8');
  assert.deepEqual(parseAll(new PipeSqlParser({ lookahead: broken }), spec), parseAll(new PipeSqlParser(), spec));
});

/** A CST as plain data: rule names, labels, and tokens as `Type@offset`. */
function plain(el: CstElement): unknown {
  if ('image' in el) {
    const t = el as IToken;
    return `${t.tokenType.name}@${t.startOffset}${t.isInsertedInRecovery ? '(inserted)' : ''}`;
  }
  const n = el as CstNode;
  const kids: Record<string, unknown[]> = {};
  for (const label of Object.keys(n.children).sort()) kids[label] = n.children[label]!.map(plain);
  return { name: n.name, recovered: n.recoveredNode === true, kids };
}

/** Parses each `;`-separated statement of `text` with `parser`; the CSTs and error messages. */
function parseAll(parser: PipeSqlParser, text: string): unknown[] {
  const tokens = pipeLexer.tokenize(text).tokens;
  const out: unknown[] = [];
  let start = 0;
  for (let i = 0; i <= tokens.length; i++) {
    if (i < tokens.length && tokens[i]!.tokenType.name !== 'Semicolon') continue;
    const stmt = tokens.slice(start, i);
    start = i + 1;
    if (stmt.length === 0) continue;
    parser.input = stmt;
    let cst: unknown;
    try {
      cst = plain(parser.statement());
    } catch (e) {
      cst = `threw ${(e as Error).constructor.name}`; // the recovery limit (installRecoveryLimits)
    }
    out.push({ cst, errors: parser.errors.map((e) => `${e.name}: ${e.message} at ${e.token.startOffset}`) });
  }
  return out;
}

test('a parser on the table reads texts exactly as one on Chevrotain’s own LL(k) lookahead', () => {
  const withTable = new PipeSqlParser();
  const ownLlk = new PipeSqlParser({ lookahead: {} });
  const texts: string[] = FIXTURE_NAMES.map(fixture);
  texts.push(fixture('mistakes.pipe.sql'));
  for (const f of readdirSync(join(ROOT, 'specs')).filter((n) => n.endsWith('.pipe.sql'))) texts.push(readFileSync(join(ROOT, 'specs', f), 'utf8'));
  // Broken texts too, so the error-recovery paths (which ask the lookahead functions too) agree.
  const rand = prng(14_5);
  const base = texts.slice();
  for (let n = 0; n < 300; n++) {
    const src = base[n % base.length]!;
    const words = src.split(/(\s+)/);
    for (let m = 0; m < 3; m++) words.splice(Math.floor(rand() * words.length), 1 + Math.floor(rand() * 2));
    if (rand() < 0.5) words.splice(Math.floor(rand() * words.length), 0, ' ( ', words[Math.floor(rand() * words.length)] ?? '');
    texts.push(words.join(''));
  }
  let errors = 0;
  for (const text of texts) {
    const a = parseAll(withTable, text);
    assert.deepEqual(a, parseAll(ownLlk, text), text);
    errors += a.filter((s) => (s as { errors: string[] }).errors.length > 0).length;
  }
  assert.ok(errors > 100, `the mutated texts exercise error recovery (${errors} statements with errors)`);
});

test('gated alternatives (an OR with GATEs, which the grammar has none of yet) choose as Chevrotain does', () => {
  const A = createToken({ name: 'A', pattern: /a/ });
  const B = createToken({ name: 'B', pattern: /b/ });
  const WS = createToken({ name: 'WS', pattern: /\s+/, group: Lexer.SKIPPED });
  const tokens = [A, B, WS];
  const lexer = new Lexer(tokens);
  class Mini extends CstParser {
    allowFirst = true;
    constructor(strategy?: (k: number) => ILookaheadStrategy) {
      super(tokens, { maxLookahead: 2, ...(strategy ? { lookaheadStrategy: strategy(2) } : {}) });
      this.performSelfAnalysis();
    }
    top = this.RULE('top', () => {
      this.OR([
        { GATE: () => this.allowFirst, ALT: () => { this.CONSUME(A, { LABEL: 'first' }); this.CONSUME(B); } },
        { ALT: () => { this.CONSUME2(A, { LABEL: 'second' }); this.CONSUME2(B); } },
        { ALT: () => this.CONSUME3(A) },
      ]);
    });
  }
  const table = computeLookaheadTable(new Mini().getGAstProductions(), 2);
  for (const allowFirst of [true, false]) {
    for (const text of ['a b', 'a', 'b', 'a a']) {
      const run = (p: Mini): unknown => {
        p.allowFirst = allowFirst;
        p.input = lexer.tokenize(text).tokens;
        const cst = p.top() as CstNode | undefined;
        return { cst: cst ? plain(cst) : null, errors: p.errors.map((e) => e.message) };
      };
      const got = run(new Mini((k) => new PrecomputedLookaheadStrategy(table, tokens, { maxLookahead: k })));
      assert.deepEqual(got, run(new Mini()), `${text} (first alternative ${allowFirst ? 'open' : 'gated off'})`);
    }
  }
});
