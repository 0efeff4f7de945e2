// The `.pipe.yaml` validator compiled at build time (src/syntax/yaml/schema-validator.gen.ts):
// the committed file is what scripts/yaml-validator.mjs generates from the schema as it is now
// (a schema change without `npm run build` fails here), and it reports exactly the errors ajv's
// run-time compile of the same schema reports, on every YAML fixture, spec and broken variant.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
// @ts-expect-error -- a plain .mjs build script without type declarations
import { AJV_OPTIONS, yamlValidatorText } from '../../../scripts/yaml-validator.mjs';
import { validate as generated } from '../../../src/syntax/yaml/schema-validator.gen.ts';
import schema from '../../../grammar/pipe-yaml.schema.json' with { type: 'json' };

const ROOT = join(import.meta.dirname, '..', '..', '..');

test('schema-validator.gen.ts is the validator of the current schema (run `npm run build` after a schema change)', () => {
  assert.equal(readFileSync(join(ROOT, 'src', 'syntax', 'yaml', 'schema-validator.gen.ts'), 'utf8'), yamlValidatorText());
});

/** Every .pipe.yaml under the folder (recursively). */
function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.pipe.yaml'))
    .map((e) => join(e.parentPath, e.name));
}

test('the generated validator reports what ajv compiling the schema at run time reports', () => {
  const ajv = new Ajv(AJV_OPTIONS);
  ajv.addVocabulary(['x-expected']);
  const runtime = ajv.compile(schema);
  const docs: unknown[] = [];
  for (const f of [...yamlFiles(join(ROOT, 'specs')), ...yamlFiles(join(ROOT, 'test'))]) {
    let doc: unknown;
    try {
      doc = parse(readFileSync(f, 'utf8'));
    } catch {
      continue;
    }
    docs.push(doc);
    // Broken variants: each top-level key's value replaced by a wrong-typed one, and an unknown key.
    if (doc && typeof doc === 'object' && !Array.isArray(doc)) {
      for (const k of Object.keys(doc)) docs.push({ ...doc, [k]: 42 }, { ...doc, [k]: ['x'] });
      docs.push({ ...doc, pipelin: 'x' });
    }
  }
  assert.ok(docs.length > 50, `documents compared: ${docs.length}`);
  let failing = 0;
  for (const doc of docs) {
    const a = runtime(doc);
    const b = (generated as typeof runtime)(doc);
    assert.equal(b, a);
    assert.deepEqual(b ? null : (generated as typeof runtime).errors, a ? null : runtime.errors);
    if (!a) failing++;
  }
  assert.ok(failing > 20, `documents with errors: ${failing}`);
});
