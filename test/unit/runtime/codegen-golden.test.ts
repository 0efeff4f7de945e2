// The generated module is the golden: readable, specialized (only used columns decoded), and
// byte-identical across builds, bundle included. UPDATE_GOLDEN=1 rewrites the goldens.
import { test } from 'node:test';
import { createHash } from 'node:crypto';
import { version as esbuildVersion } from 'esbuild';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdirSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { compileFile } from '../../../src/build/compile.ts';
import { generateModule, runtimeTarget } from '../../../targets/runtime/index.ts';
import { DiagnosticBag } from '../../../src/diagnostics/bag.ts';

const SPECS = path.resolve('test/fixtures/runtime/specs');
const GOLDEN = path.resolve('test/fixtures/runtime/golden');

async function planOf(spec: string) {
  const r = await compileFile(spec, { cwd: SPECS, env: { get: () => undefined } });
  assert.ok(r.plan, r.diagnostics.items.map((d) => d.message).join('\n'));
  return r.plan;
}

for (const spec of readdirSync(SPECS).filter((f) => f.endsWith('.pipe.sql')).sort()) {
  test(`generated module of ${spec} matches its golden`, async () => {
    const text = generateModule(await planOf(spec)).text;
    const file = path.join(GOLDEN, spec.replace(/\.pipe\.sql$/, '.gen.mjs'));
    if (process.env.UPDATE_GOLDEN === '1') {
      mkdirSync(GOLDEN, { recursive: true });
      writeFileSync(file, text);
    }
    assert.equal(text, readFileSync(file, 'utf8'));
  });
}

test('the decoder reads only the columns the plan uses', async () => {
  const text = generateModule(await planOf('bid-hop.pipe.sql')).text;
  assert.match(text, /decodes 2 of 3 columns/);
  assert.match(text, /o\["bidtime"\]/);
  assert.match(text, /o\["price"\]/);
  assert.doesNotMatch(text, /o\["item"\]/);
  // Specialized, not interpreted: the predicate is a plain comparison on the row array.
  assert.match(text, /function pred_hop_sum_filter\(r\)/);
});

test('two builds emit byte-identical files (module, bundle lock and bundle)', async () => {
  const plan = await planOf('bid-session-items.pipe.sql');
  const ctx = () => ({ diagnostics: new DiagnosticBag(), readPrevious: () => null });
  const a = await runtimeTarget.emit(plan, ctx());
  const b = await runtimeTarget.emit(structuredClone(plan), ctx());
  // The reviewable files go to generated/<pipeline>/; the bundle is a separate (git-ignored) output.
  assert.deepEqual(a.map((f) => [f.path, f.output ?? 'review']), [
    ['runtime/pipeline.gen.mjs', 'review'],
    ['runtime/bundle.lock.json', 'review'],
    ['pipeline.mjs', 'bundle'],
    ['runtime.mjs', 'bundle'],
    ['alerts.yaml', 'review'],
  ]);
  for (let i = 0; i < a.length; i++) assert.ok(a[i]!.contents === b[i]!.contents, `${a[i]!.path} differs between builds`);
  // No absolute paths of this machine leak into the bundle or its lock.
  assert.ok(!String(a[2]!.contents).includes(process.cwd()));
  assert.ok(!String(a[3]!.contents).includes(process.cwd()));
  assert.ok(!String(a[1]!.contents).includes(process.cwd()));
  // The lock pins the bundle: its sha256 and size are those of the bundle's bytes.
  const bundle = Buffer.from(a[2]!.contents as string);
  const library = Buffer.from(a[3]!.contents as string);
  const lock = JSON.parse(a[1]!.contents as string) as { runtime: string; library: string; esbuild: string; modules: string[]; bundle: { sha256: string; bytes: number }; libraryBundle: { file: string; sha256: string; bytes: number } };
  assert.equal(lock.bundle.sha256, createHash('sha256').update(bundle).digest('hex'));
  assert.equal(lock.bundle.bytes, bundle.length);
  assert.deepEqual(lock.libraryBundle, { file: 'runtime.mjs', sha256: createHash('sha256').update(library).digest('hex'), bytes: library.length });
  // bid-session-items reads a file and writes files and stdout: those connector modules, no others.
  assert.deepEqual(lock.modules, ['file-sink', 'file-source', 'stdout']);
  assert.equal(lock.esbuild, esbuildVersion);
  assert.match(lock.library, /^sha256:[0-9a-f]{64}$/);
});

test('an unsupported connector is a coded warning at build time and an error at run time', async () => {
  const { bidPlan } = await import('../../fixtures/runtime/bid-plans.ts');
  const plan = bidPlan({ path: 'x.ndjson', window: { kind: 'tumble', sizeMs: 60_000, offsetMs: 0 } });
  plan.sources[0]!.connector = 'kinesis' as never; // a connector this runtime build does not have
  const diagnostics = new DiagnosticBag();
  await runtimeTarget.emit(plan, { diagnostics, readPrevious: () => null });
  assert.deepEqual(diagnostics.items.map((d) => [d.code, d.severity]), [['runtime-unsupported', 'warning']]);
  const { runPipeline } = await import('../../../targets/runtime/index.ts');
  let err = '';
  const r = await runPipeline(plan, { baseDir: '/tmp', env: {}, handleSignals: false, stderr: (t) => (err += t) });
  assert.equal(r.exitCode, 1);
  assert.match(err, /runtime-unsupported.*source connector 'kinesis'/);
});
