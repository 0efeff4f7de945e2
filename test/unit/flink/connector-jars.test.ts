// The connector jars the Flink target names in deployment.yaml are the ones the Flink tests
// install (test/services/flink/pom.xml): a version bumped in one place only would make the
// deployment ask for a jar the tests never ran.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONNECTOR_JARS } from '../../../targets/flink/emit.ts';

const pom = readFileSync(join(import.meta.dirname, '..', '..', 'services', 'flink', 'pom.xml'), 'utf8');

test('every connector jar of the Flink target is pinned at the same version in the Flink tests\' pom', () => {
  const pinned = new Set(
    [...pom.matchAll(/<groupId>([^<]+)<\/groupId><artifactId>([^<]+)<\/artifactId><version>([^<]+)<\/version>/g)].map((m) => `${m[1]}:${m[2]}:${m[3]}`),
  );
  assert.ok(pinned.size >= 5, 'the pom lists the connector jars');
  for (const [use, coord] of Object.entries(CONNECTOR_JARS)) assert.ok(pinned.has(coord), `${use}: ${coord} is not pinned in test/services/flink/pom.xml (pinned: ${[...pinned].join(', ')})`);
});
