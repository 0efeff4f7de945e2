// A reformatted spec must resume from the checkpoints of the old text: `pipec fmt --write` may move
// statements and spaces but not change the plan fingerprint the runtime checks on resume (it keeps
// option text as written, so `idempotence = true` must not become `TRUE`). Checked on every spec.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileFile } from '../../../src/build/compile.ts';
import { format } from '../../../src/api.ts';
import { fingerprint } from '../../../targets/runtime/codegen/module.ts';

const specsDir = join(import.meta.dirname, '..', '..', '..', 'specs');
const env = { get: (n: string): string | undefined => `<${n}>` };

for (const file of readdirSync(specsDir).filter((f) => /\.pipe\.(sql|yaml)$/.test(f))) {
  test(`specs/${file}: the formatted text has the plan fingerprint of the original`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pipec-fmt-fp-'));
    try {
      cpSync(specsDir, dir, { recursive: true });
      const text = readFileSync(join(dir, file), 'utf8');
      // Spaces and line breaks a formatter removes, so the comparison is not trivially equal.
      const messy = text.replace(/ = /g, '   =   ').replace(/,\n/g, ',\n\n');
      writeFileSync(join(dir, file), messy);
      const before = await compileFile(file, { cwd: dir, env });
      assert.ok(before.plan, `${file} did not compile`);
      const formatted = format({ path: file, text: messy }).text;
      assert.ok(formatted !== null && formatted !== messy);
      writeFileSync(join(dir, file), formatted);
      const after = await compileFile(file, { cwd: dir, env });
      assert.ok(after.plan);
      assert.equal(fingerprint(after.plan), fingerprint(before.plan));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

test('the notation of booleans and percentages survives formatting', () => {
  const text = `PIPELINE p;\nCREATE SOURCE s (k BIGINT) WITH (connector = 'datagen', total_rows = '1');\nCREATE SINK k FROM s WITH (connector = 'kafka', topic = 't', brokers = 'b:9092', format = 'json', acks = 'all', idempotence = true);\n`;
  const out = format({ path: 'p.pipe.sql', text }).text!;
  assert.match(out, /idempotence = true/);
});
