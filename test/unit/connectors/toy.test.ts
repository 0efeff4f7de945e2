// Adding a connector touches one folder (issue 15): the toy descriptor of
// test/fixtures/connectors/toy/, added with `withConnectors`, makes the checker accept its
// options and reject wrong ones with coded diagnostics, the lowering resolve its config with
// its defaults, and docs/connectors.md's generator document it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { check } from '../../../src/api.ts';
import { CONNECTORS, withConnectors } from '../../../src/connectors/index.ts';
import { connectorsMarkdown } from '../../../src/connectors/docs.ts';
import { compileFile } from '../../../src/build/compile.ts';
import { lowerPlan } from '../../../src/plan/physical/lower.ts';
import { toy } from '../../fixtures/connectors/toy/descriptor.ts';

const spec = (opts: string): Record<string, string> => ({
  'toy.pipe.sql': `CREATE SOURCE hello (id BIGINT, msg STRING) WITH (connector = 'toy', ${opts});\nCREATE SINK out FROM hello WITH (connector = 'stdout');\n`,
});
const codes = (r: { diagnostics: { code: string }[] }): string[] => r.diagnostics.map((d) => d.code);

test('without its descriptor, the toy connector is unknown', async () => {
  const r = await check({ sources: spec("greeting = 'hi'") });
  assert.deepEqual(codes(r), ['unknown-connector']);
});

test('with its descriptor, the checker accepts its options', async () => {
  const r = await withConnectors([toy], () => check({ sources: spec("greeting = 'hi', speed = 'fast'") }));
  assert.deepEqual(r.diagnostics, []);
  assert.equal(r.ok, true);
});

test('a wrong value, an unknown key and a missing required key are coded diagnostics', async () => {
  const bad = await withConnectors([toy], () => check({ sources: spec("greeting = 'hi', speed = 'warp'") }));
  assert.deepEqual(codes(bad), ['invalid-option-value']);
  assert.match(bad.diagnostics[0]!.message, /speed/);
  assert.match(bad.diagnostics[0]!.message, /warp/);
  const typo = await withConnectors([toy], () => check({ sources: spec("greeting = 'hi', sped = 'fast'") }));
  assert.deepEqual(codes(typo), ['unknown-option']);
  assert.match(typo.diagnostics[0]!.message, /sped/);
  const missing = await withConnectors([toy], () => check({ sources: spec("speed = 'fast'") }));
  assert.deepEqual(codes(missing), ['missing-option']);
  assert.match(missing.diagnostics[0]!.message, /greeting/);
});

test('the lowering resolves its config through its resolver, defaults applied', async () => {
  const plan = await withConnectors([toy], async () => {
    const c = await compileFile('toy.pipe.sql', { cwd: process.cwd(), env: { get: () => undefined }, readText: () => spec("greeting = 'hi'")['toy.pipe.sql']! });
    assert.equal(c.diagnostics.hasErrors, false);
    return lowerPlan(c.plan!);
  });
  assert.deepEqual(plan.sources[0]!.config, { connector: 'toy', greeting: 'hi', speed: 'slow', repeat: 1, templated: [] });
});

test('the docs generator documents it like a built-in', () => {
  const md = connectorsMarkdown([...CONNECTORS, toy]);
  assert.match(md, /## `toy` \(source\)/);
  assert.match(md, /\| `greeting` \| string \| yes \|  \|  \| What each row says\. \|/);
  assert.match(md, /\| `speed` \| 'slow' \/ 'fast' \|  \| slow \|  \| How fast it greets\. \|/);
  assert.match(md, /- runtime: not supported/);
  // ...and the built-in table is untouched once the test is over.
  assert.ok(!connectorsMarkdown(CONNECTORS).includes('`toy`'));
});
