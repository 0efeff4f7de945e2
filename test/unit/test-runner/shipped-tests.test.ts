// Every spec in specs/ has a test file, and across them every step kind and every output kind
// (sink, late sink, dead letters; set and exact order; CDC kinds, keys, offsets) is used.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { repoRoot } from '../../cli/run-cli.ts';

const specs = join(repoRoot, 'specs');

test('each spec in specs/ has its <name>.pipe.test.yaml, and the tests cover every step kind', () => {
  const names = readdirSync(specs).filter((f) => /\.pipe\.(sql|yaml)$/.test(f) && !f.endsWith('.pipe.test.yaml'));
  assert.ok(names.length >= 5);
  const steps = new Set<string>();
  const text: string[] = [];
  for (const n of names) {
    const t = join(specs, n.replace(/\.pipe\.(sql|yaml)$/, '.pipe.test.yaml'));
    assert.ok(existsSync(t), `${n} has a test file`);
    const src = readFileSync(t, 'utf8');
    text.push(src);
    const doc = parse(src) as { spec: string; tests: { steps: unknown[] }[] };
    assert.equal(doc.spec, n);
    for (const c of doc.tests) for (const s of c.steps) steps.add(typeof s === 'string' ? s : Object.keys(s as object).find((k) => ['rows', 'watermark', 'advance_processing_time', 'idle_partition'].includes(k))!);
  }
  assert.deepEqual([...steps].sort(), ['advance_processing_time', 'checkpoint', 'crash_and_restart', 'end_of_input', 'idle_partition', 'rows', 'watermark']);
  const all = text.join('\n');
  for (const x of ['$op: -U', '$op: +U', '$op: -D', '$key:', '$offset:', 'partition: 1', 'order: exact', 'dead_letters:', 'orders_late:', 'late_readings:']) assert.ok(all.includes(x), `some test uses ${x}`);
});
