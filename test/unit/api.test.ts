// The library API (src/api.ts) on in-memory specs: diagnostics name the given path, build
// returns plans and files without touching the disk, format converts, explain reads the registry.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, check, codes, explain, format } from '../../src/api.ts';

const SPEC = `PIPELINE mem;
CREATE SOURCE nums (id BIGINT NOT NULL, tag STRING) WITH (connector = 'datagen', total_rows = 10, fields.tag.kind = '\${TAG_KIND}');
CREATE SINK out FROM nums WITH (connector = 'stdout');
`;

test('check of an in-memory spec reports coded diagnostics at the given path; env fills ${VAR}', async () => {
  const missing = await check({ sources: { 'in/mem.pipe.sql': SPEC } });
  assert.equal(missing.ok, false);
  assert.ok(missing.diagnostics.some((d) => d.code === 'missing-env-var' && d.span.file === 'in/mem.pipe.sql' && d.span.start.line === 2));
  const ok = await check({ sources: { 'in/mem.pipe.sql': SPEC }, env: { TAG_KIND: 'random' } });
  assert.deepEqual(ok.diagnostics.filter((d) => d.severity === 'error'), []);
  assert.equal(ok.ok, true);
  assert.deepEqual(ok.specs, ['in/mem.pipe.sql']);
  const typo = await check({ sources: { 'x.pipe.sql': SPEC.replace('FROM nums', 'FROM numz') }, env: { TAG_KIND: 'random' } });
  assert.equal(typo.ok, false);
  assert.equal(typo.diagnostics.find((d) => d.severity === 'error')!.span.start.line, 3);
});

test('build returns plans, generated files and bundles, and writes nothing', async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'pipec-api-'));
  try {
    const r = await build({ sources: { 'mem.pipe.sql': SPEC }, env: { TAG_KIND: 'random' }, cwd, targets: ['runtime'] });
    assert.equal(r.ok, true);
    assert.deepEqual(Object.keys(r.plans), ['mem']);
    assert.equal(r.plans.mem!.pipeline.name, 'mem');
    assert.deepEqual(Object.keys(r.outputs), ['mem/alerts.yaml', 'mem/plan.txt', 'mem/runtime/bundle.lock.json', 'mem/runtime/pipeline.gen.mjs']);
    assert.deepEqual(Object.keys(r.bundles), ['mem/pipeline.mjs', 'mem/runtime.mjs']);
    assert.deepEqual(readdirSync(cwd), [], 'nothing written');
    await assert.rejects(build({ sources: {}, targets: ['spark' as never] }), /unknown target 'spark'/);
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
});

test('format converts SQL to YAML and back, keeping ${VAR}; a parse error gives text null', () => {
  const yaml = format({ path: 'mem.pipe.sql', text: SPEC, to: 'yaml' });
  assert.ok(yaml.text !== null && yaml.text.includes('${TAG_KIND}'));
  const back = format({ path: 'mem.pipe.yaml', text: yaml.text!, to: 'sql' });
  assert.equal(format({ path: 'mem.pipe.sql', text: back.text! }).text, back.text, 'canonical SQL is a fixed point');
  assert.match(back.text!, /CREATE SINK out FROM nums/);
  const broken = format({ path: 'b.pipe.sql', text: 'PIPELINE ;; CREATE' });
  assert.equal(broken.text, null);
  assert.ok(broken.diagnostics.some((d) => d.severity === 'error'));
});

test('explain and codes read the registry', () => {
  const e = explain('unknown-column');
  assert.equal(e?.code, 'unknown-column');
  assert.equal(e?.severity, 'error');
  assert.ok(e!.explain.length > 40);
  assert.equal(explain('no-such-code'), null);
  assert.ok(codes().some((c) => c.code === 'missing-env-var'));
});
