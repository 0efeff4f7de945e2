// "Both forms compile to the same IR" (LANGUAGE.md, YAML twin): the YAML fixtures and their
// SQL twins go through the whole compiler and must give the same plan and the same diagnostics.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { compileFile } from '../../../src/build/compile.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const ENV = { get: (n: string) => ({ PIPEC_CATALOG_URI: 'postgresql://cat', PIPEC_WAREHOUSE: '/tmp/wh' })[n] };
const formFree = (v: unknown): unknown =>
  JSON.parse(JSON.stringify(v, (k, x: unknown) => (k === 'span' || k === 'file' || k === 'syntax' || k === 'labels' ? undefined : x)));

for (const base of ['full', 'language-example']) {
  test(`${base}: .pipe.yaml and .pipe.sql compile to the same plan and diagnostics`, async () => {
    const y = await compileFile(`test/fixtures/yaml/${base}.pipe.yaml`, { cwd: ROOT, env: ENV });
    const s = await compileFile(`test/fixtures/yaml/${base}.pipe.sql`, { cwd: ROOT, env: ENV });
    const said = (r: typeof y) => r.diagnostics.sorted().map((d) => `${d.severity} ${d.code}: ${d.message}`);
    assert.deepEqual(said(y), said(s));
    assert.ok(y.plan && s.plan);
    assert.equal(y.plan.pipeline.syntax, 'yaml');
    assert.deepEqual(formFree(y.plan), formFree(s.plan));
  });
}

test('full.pipe.yaml is a clean pipeline; # pipec:allow silences the lint of the entry below it', async () => {
  const y = await compileFile('test/fixtures/yaml/full.pipe.yaml', { cwd: ROOT, env: ENV });
  const codes = y.diagnostics.sorted().map((d) => d.code);
  assert.ok(!y.diagnostics.hasErrors, codes.join(', '));
  // orders has no idle_timeout and nothing silences it.
  assert.ok(codes.includes('watermark-without-idle-timeout'), codes.join(', '));
  // clicks_1h groups by a 3-value column; the comment above it silences hot-partition-group-key.
  assert.ok(!codes.includes('hot-partition-group-key'), codes.join(', '));
  assert.deepEqual(y.plan!.sources.map((s) => s.name), ['orders', 'clicks']);
  assert.deepEqual(y.plan!.views.map((v) => v.name), ['revenue_1m', 'totals', 'clicks_1h']);
});

test('without the comment the lint is reported inside the query block, at the YAML line', async () => {
  const { mkdtempSync, writeFileSync, readFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const dir = mkdtempSync(join(tmpdir(), 'pipec-yaml-'));
  const text = readFileSync(join(ROOT, 'test/fixtures/yaml/full.pipe.yaml'), 'utf8').replace('  # pipec:allow hot-partition-group-key\n', '');
  writeFileSync(join(dir, 'full.pipe.yaml'), text);
  const y = await compileFile('full.pipe.yaml', { cwd: dir, env: ENV });
  const hot = y.diagnostics.items.find((d) => d.code === 'hot-partition-group-key');
  assert.ok(hot, 'expected the hot-partition lint');
  // The lint points at the view's SELECT: inside the clicks_1h query block, 6 spaces in.
  const selectLine = text.split('\n').findIndex((l) => l.includes('SELECT page')) + 1;
  assert.deepEqual([hot.span.start.line, hot.span.start.column], [selectLine, 7]);
});
