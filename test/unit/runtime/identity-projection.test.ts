// A projection that keeps every input column in order passes its input rows on as they are
// (operators.ts projectionCode): no projection function, no array per row. Any other
// projection (reordered, fewer columns, a computed column) still builds its rows. Each case is
// run end to end, and the rows are checked against values written out by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { PlanBuilder, column, T, E } from '../../fixtures/plans/builder.ts';
import { generateBody } from '../../../targets/runtime/codegen/module.ts';
import { instantiateBody } from '../../../targets/runtime/instantiate-body.ts';
import { runPipelineDef } from '../../../targets/runtime/lib/runner.ts';
import type { IrExpr } from '../../../src/plan/ir.ts';

type Pick = (c: (name: string) => IrExpr) => [string, IrExpr][];

async function run(pick: Pick): Promise<{ body: string; rows: unknown[] }> {
  const b = new PlanBuilder('proj');
  b.source({
    name: 'ev',
    connector: 'file',
    format: 'ndjson',
    columns: [column('k', T.string()), column('n', T.int()), column('note', T.string())],
    watermark: null,
    options: { path: 'in.ndjson' },
  });
  const p = b.project(b.scan('ev'), pick, 'p');
  b.sink({ name: 'out', connector: 'stdout', input: p, options: { format: 'ndjson' } });
  const gen = generateBody(b.build());
  assert.deepEqual(gen.unsupported, []);
  const dir = mkdtempSync(path.join(tmpdir(), 'pipec-proj-'));
  writeFileSync(path.join(dir, 'in.ndjson'), '{"k":"a","n":1,"note":"x"}\n{"k":"b","n":2,"note":null}\n');
  let out = '';
  let err = '';
  const r = await runPipelineDef(instantiateBody(gen.body, {}), { baseDir: dir, env: {}, handleSignals: false, stdout: (x) => (out += x), stderr: (x) => (err += x) });
  assert.equal(r.exitCode, 0, err);
  return { body: gen.body, rows: out.trim().split('\n').map((l) => JSON.parse(l)) };
}

test('every input column in order: rows pass on as they are', async () => {
  const { body, rows } = await run((c) => [['k', c('k')], ['n', c('n')], ['note', c('note')]]);
  assert.doesNotMatch(body, /function proj_p\(/);
  assert.match(body, /function push_p\(r\) \{\n\s*emit_p\(r\);/);
  assert.deepEqual(rows, [{ k: 'a', n: 1, note: 'x' }, { k: 'b', n: 2, note: null }]);
});

test('reordered, fewer or computed columns: the projection builds its rows', async () => {
  const reordered = await run((c) => [['n', c('n')], ['k', c('k')], ['note', c('note')]]);
  assert.match(reordered.body, /function proj_p\(r\) \{\n\s*return \[r\[1\], r\[0\], r\[2\]\];/);
  assert.deepEqual(reordered.rows, [{ n: 1, k: 'a', note: 'x' }, { n: 2, k: 'b', note: null }]);

  const fewer = await run((c) => [['k', c('k')], ['n', c('n')]]);
  assert.match(fewer.body, /function proj_p\(/);
  assert.deepEqual(fewer.rows, [{ k: 'a', n: 1 }, { k: 'b', n: 2 }]);

  const computed = await run((c) => [['k', c('k')], ['n', E.call('add', [c('n'), E.int(10)], T.int())], ['note', c('note')]]);
  assert.match(computed.body, /function proj_p\(/);
  assert.deepEqual(computed.rows, [{ k: 'a', n: 11, note: 'x' }, { k: 'b', n: 12, note: null }]);
});
