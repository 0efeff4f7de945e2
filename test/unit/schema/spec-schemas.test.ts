// The schemas in specs/schemas/ against the pipelines in specs/ that name them: every source with
// a `schema` option loads without a diagnostic, and its declared columns are a projection of it.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { parseSpecText } from '../../../src/build/compile.ts';
import { DiagnosticBag } from '../../../src/diagnostics/bag.ts';
import { checkDeclaredColumns } from '../../../src/schema/index.ts';
import type { CreateSourceStmt } from '../../../src/syntax/ast.ts';
import { loaderFor, specsDir } from './helpers.ts';

// Values only need to be present: the spec schemas are files, nothing is contacted.
const env: Record<string, string> = new Proxy({}, { get: (_t, name) => `\${${String(name)}}` });

const specs = readdirSync(specsDir).filter((f) => f.endsWith('.pipe.sql') || f.endsWith('.pipe.yaml'));

test('the example pipelines that name a schema file exist (this test checks something)', () => {
  const named = specs.filter((f) => /schema\s*[:=]\s*'?file:/.test(readFileSync(path.join(specsDir, f), 'utf8')));
  // Which pipelines use which schema is the specs' business; that some do keeps the loop below honest.
  assert.ok(named.length > 0, 'no pipeline in specs/ names a schema file');
});

for (const spec of specs) {
  test(`${spec}: its schemas load and its declared columns match them`, async () => {
    const file = path.join('specs', spec);
    const bag = new DiagnosticBag();
    const ast = parseSpecText(file, readFileSync(path.join(specsDir, spec), 'utf8'), { get: (n) => env[n] }, bag);
    assert.deepEqual(bag.items.map((d) => d.message), [], 'the spec parses');
    const loader = loaderFor(specsDir);
    for (const s of ast.statements.filter((x): x is CreateSourceStmt => x.kind === 'source')) {
      const ref = s.options.find((o) => o.key === 'schema');
      if (!ref) continue;
      const format = s.options.find((o) => o.key === 'format')?.value.text ?? null;
      const loaded = await loader.load({ ref: ref.value.text, format, span: ref.value.span }, bag);
      assert.ok(loaded, `${s.name.name}: ${bag.items.map((d) => d.message).join('; ')}`);
      if (s.columns) checkDeclaredColumns(s.columns, loaded, bag);
      assert.deepEqual(bag.items.map((d) => `${d.code}: ${d.message}`), [], s.name.name);
    }
  });
}
