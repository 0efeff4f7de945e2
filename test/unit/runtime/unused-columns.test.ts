// Which values of a JSON record the runtime checks (docs/language-decisions.md "Strict
// values", issue 18 item 2): every column the plan reads is checked against its type, a
// column it does not read is not (a wrong type there is no dead letter), and the record must
// still be one valid JSON object as a whole (malformed text anywhere is a dead letter).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { PlanBuilder, column, T } from '../../fixtures/plans/builder.ts';
import { generateBody } from '../../../targets/runtime/codegen/module.ts';
import { instantiateBody } from '../../../targets/runtime/instantiate-body.ts';
import { runPipelineDef } from '../../../targets/runtime/lib/runner.ts';

test('a bad value in an unused column is no dead letter; malformed JSON or a bad used value is', async () => {
  const b = new PlanBuilder('unused');
  b.source({
    name: 'ev',
    connector: 'file',
    format: 'ndjson',
    columns: [column('k', T.string()), column('amount', T.decimal(10, 2)), column('note', T.string(false))],
    watermark: null,
    options: { path: 'in.ndjson' },
  });
  const p = b.project(b.scan('ev'), (c) => [['k', c('k')], ['amount', c('amount')]]);
  b.sink({ name: 'out', connector: 'stdout', input: p, options: { format: 'ndjson' } });
  const plan = b.build();
  // Projection pruning: the plan reads k and amount, never note.
  plan.sources[0]!.usedColumns = ['k', 'amount'];
  const gen = generateBody(plan);
  assert.deepEqual(gen.unsupported, []);
  assert.match(gen.body, /decodes 2 of 3 columns/);
  const dir = mkdtempSync(path.join(tmpdir(), 'pipec-unused-'));
  const lines = [
    '{"k":"a","amount":1.5,"note":"text"}',
    '{"k":"b","amount":2,"note":{"deep":[1,2]}}', // note is no STRING, but nothing reads it
    '{"k":"c","amount":3,"note":12}',
    '{"k":"d","amount":4,"note":"x",}', // a trailing comma: not JSON
    '{"k":"e","amount":"zz","note":"x"}', // amount is read: no DECIMAL
    '{"k":"f","amount":5}', // note NOT NULL, absent, unread
  ];
  writeFileSync(path.join(dir, 'in.ndjson'), lines.join('\n') + '\n');
  let out = '';
  let err = '';
  const r = await runPipelineDef(instantiateBody(gen.body, {}), { baseDir: dir, env: {}, handleSignals: false, stdout: (x) => (out += x), stderr: (x) => (err += x) });
  assert.equal(r.exitCode, 0, err);
  const rows = out.trim().split('\n').map((l) => JSON.parse(l) as { k: string; amount: string });
  assert.deepEqual(rows.map((x) => `${x.k} ${x.amount}`), ['a 1.50', 'b 2.00', 'c 3.00', 'f 5.00']);
  const dead = readFileSync(path.join(dir, 'unused.dead-letters.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { line: number; reason: string });
  assert.deepEqual(dead.map((d) => d.line), [4, 5]);
  assert.match(dead[0]!.reason, /^not valid JSON: /);
  assert.match(dead[1]!.reason, /^column amount: expected DECIMAL\(10, 2\)/);
});
