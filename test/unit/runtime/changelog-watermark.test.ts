// A CDC source with a WATERMARK on a data column: key-only retractions (no REPLICA IDENTITY
// FULL) carry a NULL time; they must reach the sink, not the dead-letter file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { PlanBuilder, column, T } from '../../fixtures/plans/builder.ts';
import { generateBody } from '../../../targets/runtime/codegen/module.ts';
import { instantiateBody } from '../../../targets/runtime/instantiate-body.ts';
import { runPipelineDef } from '../../../targets/runtime/lib/runner.ts';
import { setRowKind, type Row, type RowKind } from '../../../targets/runtime/lib/ops/types.ts';

const row = (kind: RowKind, ...values: unknown[]): Row => setRowKind(values, kind);

test('key-only -U/-D rows of a CDC source with a watermark column pass through; a NULL time on +I is still a dead letter', async () => {
  const b = new PlanBuilder('cdc_wm');
  b.source({
    name: 'cust',
    connector: 'postgres-cdc',
    columns: [column('id', T.int(false)), column('name', T.string()), column('updated_at', T.timestamp(3))],
    primaryKey: ['id'],
    watermark: { column: 'updated_at', delayMs: 0, idleTimeoutMs: null },
    options: { table: 'cust' },
  });
  b.sink({ name: 'out', connector: 'stdout', input: b.scan('cust'), options: { format: 'ndjson' } });
  const plan = b.build();
  const gen = generateBody(plan);
  assert.deepEqual(gen.unsupported, []);
  const dir = mkdtempSync(path.join(tmpdir(), 'pipec-cdc-wm-'));
  let out = '';
  let err = '';
  const t = Date.UTC(2024, 0, 1);
  const rows = [row('+I', 1, 'a', t), row('-U', 1, null, null), row('+U', 1, 'b', t + 1000), row('-D', 1, null, null), row('+I', 2, 'c', null)];
  const r = await runPipelineDef(instantiateBody(gen.body, {}), { baseDir: dir, env: {}, handleSignals: false, stdout: (x) => (out += x), stderr: (x) => (err += x), memorySources: { [plan.sources[0]!.id]: { rows } } });
  assert.equal(r.exitCode, 0, err);
  const got = out.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.deepEqual(got.map((g) => `${g.op} ${g.id} ${g.name}`), ['+I 1 a', '-U 1 null', '+U 1 b', '-D 1 null']);
  const dead = path.join(dir, 'cdc_wm.dead-letters.ndjson');
  assert.ok(existsSync(dead), 'the +I row without a time is a dead letter');
});
