// Writes grammar/lookahead-table.gen.json, the parser's precomputed LL(k) lookahead paths
// (grammar/lookahead-table.ts), and grammar/lexer-hints.gen.json, the lexer's token analysis
// (grammar/lexer-hints.ts), from the grammar as it is now. Run by scripts/bundle.mjs
// (`npm run build`) before the CLI is bundled, so dist/ always parses with a table of its own
// grammar; the file is committed so that the sources (tests, tsx) have it too, and
// test/unit/grammar/lookahead-table.test.ts fails when it is stale. Deterministic: the same
// grammar gives the same bytes, and an unchanged file is not rewritten.
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';

const root = resolve(import.meta.dirname, '..');
const tableFile = join(root, 'grammar', 'lookahead-table.gen.json');
const hintsFile = join(root, 'grammar', 'lexer-hints.gen.json');

export async function writeLookaheadTable() {
  // The grammar is TypeScript: bundle a small entry and import it. The stored table is replaced
  // by `{}` there, so a stale or broken file never feeds its own regeneration.
  const entry = [
    "import { pipeParser, MAX_LOOKAHEAD } from './grammar/parser.ts';",
    "import { computeLookaheadTable, lookaheadTableText } from './grammar/lookahead-table.ts';",
    'export const text = lookaheadTableText(computeLookaheadTable(pipeParser.getGAstProductions(), MAX_LOOKAHEAD));',
    "import { allTokens, LEXER_CONFIG } from './grammar/lexer.ts';",
    "import { computeLexerHints, lexerHintsText } from './grammar/lexer-hints.ts';",
    'export const hints = lexerHintsText(computeLexerHints(allTokens, LEXER_CONFIG));',
  ].join('\n');
  const out = await build({
    stdin: { contents: entry, resolveDir: root, loader: 'ts' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    write: false,
    logLevel: 'warning',
    plugins: [
      {
        name: 'empty-lookahead-table',
        setup(b) {
          b.onResolve({ filter: /(lookahead-table|lexer-hints)\.gen\.json$/ }, (a) => ({ path: a.path, namespace: 'empty-table' }));
          b.onLoad({ filter: /.*/, namespace: 'empty-table' }, () => ({ contents: '{}', loader: 'json' }));
        },
      },
    ],
  });
  const code = out.outputFiles[0].text;
  const { text, hints } = await import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`);
  for (const [file, contents] of [[tableFile, text], [hintsFile, hints]]) {
    let old = null;
    try {
      old = readFileSync(file, 'utf8');
    } catch {}
    if (old !== contents) writeFileSync(file, contents);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await writeLookaheadTable();
