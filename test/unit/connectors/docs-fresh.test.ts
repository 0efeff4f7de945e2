// docs/connectors.md is generated from the connector descriptors: this fails when a descriptor
// changed without `npm run docs:connectors` (npm test, and so .ci/run, runs it), and checks that
// the generated text says what the descriptors say.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONNECTORS } from '../../../src/connectors/index.ts';
import { CONNECTOR_DOCS_PATH, connectorsMarkdown } from '../../../src/connectors/docs.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');

test('docs/connectors.md is what the descriptors generate (run npm run docs:connectors)', () => {
  const onDisk = readFileSync(join(ROOT, CONNECTOR_DOCS_PATH), 'utf8');
  assert.equal(onDisk, connectorsMarkdown(CONNECTORS), `${CONNECTOR_DOCS_PATH} is stale: run npm run docs:connectors`);
});

test('generating twice gives the same bytes', () => {
  assert.equal(connectorsMarkdown(CONNECTORS), connectorsMarkdown([...CONNECTORS]));
});

test('every option of every connector side is documented, with its required flag and secrets', () => {
  const md = connectorsMarkdown(CONNECTORS);
  for (const d of CONNECTORS) {
    assert.ok(md.includes(`## \`${d.name}\``), d.name);
    for (const side of [d.source, d.sink]) {
      for (const o of side?.options ?? []) {
        assert.ok(o.doc, `${d.name}.${o.key} has a one-line doc`);
        const row = md.split('\n').find((l) => l.startsWith(`| \`${o.key}\` |`) && l.includes(o.doc!.replace(/\|/g, '\\|')));
        assert.ok(row, `${d.name}.${o.key} has a row`);
      }
    }
  }
  // The two credential-bearing options are marked secret.
  assert.match(md, /\| `dsn` \| string \| yes \|  \| yes \|/);
  assert.match(md, /\| `password` \| string \|  \| [^|]+ \| yes \|/);
});
