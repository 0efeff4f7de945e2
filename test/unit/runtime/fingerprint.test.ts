// The checkpoint fingerprint names the plan, not the machine: options count as written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PlanBuilder, column, T } from '../../fixtures/plans/builder.ts';
import { fingerprint } from '../../../targets/runtime/codegen/module.ts';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { IrSink, PlanDoc } from '../../../src/plan/ir.ts';
import { compileFile } from '../../../src/build/compile.ts';
import { discoverSpecs } from '../../../src/build/discover.ts';
import { caseInput, GOLDEN_ENV, listCases } from '../../golden/golden-harness.ts';

function plan(url: { value: string; template: string }, table = 'db.t') {
  const b = new PlanBuilder('fp');
  b.source({ name: 's', connector: 'datagen', columns: [column('id', T.int(false))], options: { total_rows: '10' } });
  const sink = b.sink({ name: 'ch', connector: 'clickhouse', input: b.scan('s'), options: { table }, clickhouse: { table, orderBy: [], partitionBy: null, ttl: null } });
  sink.options.url = { value: url.value, template: url.template, envVars: url.template.startsWith('${') ? ['PIPEC_CLICKHOUSE_URL'] : [] };
  return b.build();
}

test('the fingerprint ignores option values behind ${VAR} (a moved server keeps its checkpoints) but not the plan', () => {
  const a = fingerprint(plan({ value: 'http://127.0.0.1:8123', template: '${PIPEC_CLICKHOUSE_URL}' }));
  const b = fingerprint(plan({ value: 'http://10.0.0.7:18123', template: '${PIPEC_CLICKHOUSE_URL}' }));
  assert.equal(a, b);
  const literal = fingerprint(plan({ value: 'http://10.0.0.7:18123', template: 'http://10.0.0.7:18123' }));
  assert.notEqual(a, literal, 'a different option as written is a different plan');
  assert.notEqual(a, fingerprint(plan({ value: 'http://127.0.0.1:8123', template: '${PIPEC_CLICKHOUSE_URL}' }, 'db.other')));
});

test('the fingerprint is the sha256 of the plan as JSON without spans, options as written, for every spec and golden case', async () => {
  // The definition, spelled as JSON.stringify with a replacer (the fingerprint itself builds the
  // same value without one, which is faster): both must give the same text for every real plan.
  const reference = (p: PlanDoc): string => {
    const sinks = p.sinks.map((s) => {
      const { span, ...rest } = s as IrSink & { iceberg?: unknown; clickhouse?: unknown; kafka?: unknown; file?: unknown };
      const { iceberg = null, clickhouse = null, kafka = null, file = null, ...common } = rest;
      return { ...common, iceberg, clickhouse, kafka, file, span };
    });
    const replacer = (k: string, v: unknown): unknown => {
      if (k === 'span') return undefined;
      if (v !== null && typeof v === 'object' && 'template' in v && 'envVars' in v && 'value' in v) return (v as { template: string }).template;
      return v;
    };
    return createHash('sha256').update(JSON.stringify({ ...p, pipeline: { ...p.pipeline, file: '' }, sinks }, replacer)).digest('hex').slice(0, 16);
  };
  const repoRoot = join(import.meta.dirname, '..', '..', '..');
  const files = [...discoverSpecs(['specs'], repoRoot).files, ...listCases().map(caseInput)];
  let plans = 0;
  for (const file of files) {
    const r = await compileFile(file, { cwd: repoRoot, env: GOLDEN_ENV });
    if (!r.plan) continue;
    plans++;
    assert.equal(fingerprint(r.plan), reference(r.plan), file);
  }
  assert.ok(plans > 40, `${plans} plans`);
});
