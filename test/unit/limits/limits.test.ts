// The other compiler limits of docs/security.md: floods of diagnostics, prototype keys,
// super-linear inputs, line endings, NUL and empty names. Each failed before its fix.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { codes, compileText, ENV, HEAD, timeIt } from './helpers.ts';
import { renderDiagnostics, renderShort } from '../../../src/diagnostics/render.ts';
import { DiagnosticBag } from '../../../src/diagnostics/bag.ts';
import { LineMap } from '../../../src/diagnostics/span.ts';
import { lookupCode } from '../../../src/diagnostics/registry.ts';
import { boundedEditDistance, editDistance, suggest } from '../../../src/util/suggest.ts';
import { envResolver } from '../../../src/build/profile.ts';
import { prng } from '../../fuzz/mutate.ts';
import { parseSpecText } from '../../../src/build/compile.ts';
import { formatYaml } from '../../../src/syntax/format/to-yaml.ts';

test('10,000 ${A} on one line: one missing-env-var, and rendering stays small', async () => {
  const text = HEAD.replace("'datagen'", "'" + '${A}'.repeat(10000) + "'");
  const r = await compileText(text);
  assert.equal(codes(r).filter((c) => c === 'missing-env-var').length, 1);
  const out = renderDiagnostics(r.diagnostics.sorted(), { color: false, readSource: () => text });
  assert.ok(out.length < 5_000, `rendered ${out.length} chars`);
});

test('rendering: a long line is cut around the caret; duplicates once; at most 50 per file', () => {
  const line = 'x'.repeat(20000) + 'HERE' + 'y'.repeat(20000);
  const map = new LineMap(line);
  const bag = new DiagnosticBag();
  for (let i = 0; i < 200; i++) bag.report('missing-env-var', map.span('f.pipe.sql', 20000 + (i % 100), 20004 + (i % 100)), { name: 'A' });
  const out = renderDiagnostics(bag.items, { color: false, readSource: () => line });
  assert.equal(out.split('error[missing-env-var]').length - 1, 50);
  assert.match(out, /\.\.\. and 50 more diagnostics in f\.pipe\.sql/); // 100 distinct, 50 shown
  const first = out.split('\n').find((l) => l.startsWith('1 |'))!;
  assert.ok(first.length < 200 && first.includes('HERE'), first);
  // The caret is under HERE in the cut line.
  const lines = out.split('\n');
  const caret = lines[lines.indexOf(first) + 1]!;
  assert.equal(first.slice(caret.indexOf('^'), caret.indexOf('^') + 4), 'HERE');
});

test('rendering: control characters and U+2028 in user text are shown as U+FFFD', () => {
  const bag = new DiagnosticBag();
  const text = 'a\x1b[31mb\u2028c';
  bag.report('unknown-column', new LineMap(text).span('f.pipe.sql', 0, 1), { name: text, where: "'s'", suggestion: null });
  const out = renderDiagnostics(bag.items, { color: false, readSource: () => text });
  assert.ok(!/[\x1b\u2028]/.test(out), JSON.stringify(out));
  assert.ok(!/[\x1b\u2028]/.test(renderShort(bag.items[0]!)));
});

for (const key of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
  test(`YAML top-level key '${key}' is an unknown key, not an internal error`, async () => {
    const r = await compileText(`pipeline: p\n${key}:\n  a: {}\n`, '.pipe.yaml');
    assert.ok(codes(r).includes('yaml-unknown-key'), codes(r).join(', '));
    assert.ok(!codes(r).includes('internal-error'), codes(r).join(', '));
  });
}

test('${constructor} is a variable name, not Object.prototype.constructor', async () => {
  const env = envResolver({ root: '/', profiles: {}, defaultProfile: null, specs: [] }, null, {});
  assert.equal(env.get('constructor'), undefined);
  assert.equal(env.get('toString'), undefined);
  const r = await compileText(HEAD.replace("'datagen'", "'${constructor}'"), '.pipe.sql', env);
  assert.ok(codes(r).includes('missing-env-var'), codes(r).join(', '));
  assert.equal(lookupCode('constructor'), undefined);
});

test('bounded edit distance agrees with the full one within the bound', () => {
  const rnd = prng(7);
  const word = (): string => Array.from({ length: Math.floor(rnd() * 9) }, () => 'abc'[Math.floor(rnd() * 3)]).join('');
  for (let i = 0; i < 3000; i++) {
    const a = word();
    const b = word();
    const bound = Math.floor(rnd() * 5);
    const full = editDistance(a, b);
    assert.equal(boundedEditDistance(a, b, bound), full <= bound ? full : bound + 1, `${a} ${b} ${bound}`);
  }
});

test('"did you mean" on a 10,000-character name is fast (was 53 s)', () => {
  const n = 'x'.repeat(10000);
  const candidates = Array.from({ length: 20 }, (_, i) => n + 'y'.repeat(i + 1));
  const t = performance.now();
  assert.equal(suggest(n + 'z', candidates), candidates[0]);
  assert.ok(performance.now() - t < 2_000, `${performance.now() - t} ms`);
});

test('error recovery over IN (0, ..., 2000) in a column list is linear (was 45 s for 1,000)', async () => {
  const list = (n: number): string => HEAD.replace('a INT', `a INT IN (${Array.from({ length: n }, (_, i) => i).join(', ')})`);
  const ms = await timeIt(() => compileText(list(2000)));
  assert.ok(ms < 5_000, `${ms.toFixed(0)} ms`);
  const r = await compileText(list(2000));
  assert.deepEqual(codes(r), ['syntax-error']);
});

test('thousands of sinks and views check in linear time (was 43 s for 3,000 sinks)', async () => {
  const spec = (n: number): string => {
    let t = HEAD;
    for (let i = 0; i < n; i++) {
      t += `CREATE VIEW v${i} AS SELECT a FROM s WHERE a > ${i} AND TRUE;\n`;
      t += `CREATE SINK k${i} AS SELECT a FROM v${i} WITH (connector = 'stdout');\n`;
    }
    return t;
  };
  const small = await timeIt(() => compileText(spec(150)));
  const big = await timeIt(() => compileText(spec(1200)));
  // 8x the input: linear is ~8x, quadratic ~64x. Generous for a loaded machine.
  assert.ok(big / small < 24, `150: ${small.toFixed(0)} ms, 1200: ${big.toFixed(0)} ms`);
});

test('CR-only and CRLF line endings give real line numbers', async () => {
  const text = `${HEAD}CREATE VIEW v AS SELECT zz FROM s;\n`;
  for (const eol of ['\r', '\r\n']) {
    const r = await compileText(text.replace(/\n/g, eol));
    const d = r.diagnostics.items.find((x) => x.code === 'unknown-column')!;
    assert.deepEqual([d.span.start.line, d.span.start.column], [3, 25], JSON.stringify(eol));
  }
  const m = new LineMap('a\rb\r\nc\nd\u2028e');
  assert.deepEqual([m.pos(2).line, m.pos(5).line, m.pos(7).line, m.pos(9).line], [2, 3, 4, 4]);
  assert.deepEqual([m.lineText(1), m.lineText(2), m.lineText(4)], ['a', 'b', 'd\u2028e']);
});

test('a NUL in a name is a coded error at check (was ok at check, exit 70 at build)', async () => {
  const r = await compileText(`${HEAD}CREATE CATALOG lake WITH (type = 'filesystem', warehouse = '/tmp/w');\nCREATE SINK "k\0x" FROM s WITH (connector = 'iceberg', catalog = 'lake', table = 'a.b');\n`);
  assert.ok(codes(r).includes('name-nul-character'), codes(r).join(', '));
});

test('an empty quoted name is refused in SQL as in YAML, so fmt --to yaml always parses back', async () => {
  const r = await compileText(`${HEAD}CREATE VIEW "" AS SELECT a FROM s;\n`);
  assert.ok(codes(r).includes('name-empty'), codes(r).join(', '));
  // A valid spec with odd quoted names converts and parses back without errors.
  const text = `${HEAD}CREATE VIEW "a""b c" AS SELECT a AS "x.y" FROM s;\nCREATE SINK k FROM "a""b c" WITH (connector = 'stdout');\n`;
  const bag = new DiagnosticBag();
  const yaml = formatYaml(parseSpecText('t.pipe.sql', text, ENV, bag));
  const back = new DiagnosticBag();
  parseSpecText('t.pipe.yaml', yaml, ENV, back);
  assert.deepEqual(back.items.filter((d) => d.severity === 'error').map((d) => d.message), [], yaml);
});

test('fmt --to yaml round-trips a datagen fields option of a quoted, non-ASCII column', async () => {
  // Before: the column was written unquoted (`ééé: { kind: ... }`), refused by YAML as a name,
  // and the option key check then refused `fields.ééé.kind` as not an option name.
  const text = "PIPELINE p;\nCREATE SOURCE s (\"éé\" INT) WITH (connector = 'datagen', fields.\"éé\".kind = 'random');\nCREATE SINK k FROM s WITH (connector = 'stdout');\n";
  const bag = new DiagnosticBag();
  const ast = parseSpecText('t.pipe.sql', text, ENV, bag);
  const yaml = formatYaml(ast);
  const back = new DiagnosticBag();
  const ast2 = parseSpecText('t.pipe.yaml', yaml, ENV, back);
  assert.deepEqual(back.items.map((d) => d.message), [], yaml);
  const src = (f: typeof ast) => f.statements.find((s) => s.kind === 'source') as { options: { key: string }[] };
  assert.deepEqual(src(ast2).options.map((o) => o.key), src(ast).options.map((o) => o.key));
});
