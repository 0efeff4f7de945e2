// `pipec explain <connector>` / `<connector>.<option>` read the connector descriptors: every
// option of every built-in connector is listed with its type, required/default, secret flag and
// doc; one option prints alone; a toy connector added with `withConnectors` is explained too; a
// typo is answered with a suggestion and exit code 1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { explainCommand } from '../../../src/cli/commands/explain.ts';
import { CONNECTORS, withConnectors } from '../../../src/connectors/index.ts';
import type { CommandContext } from '../../../src/cli/context.ts';
import { toy } from '../../fixtures/connectors/toy/descriptor.ts';

function run(topic: string | undefined): { status: number; stdout: string; stderr: string } {
  let stdout = '';
  let stderr = '';
  const ctx = { io: { stdout: (s: string) => void (stdout += s), stderr: (s: string) => void (stderr += s) } } as unknown as CommandContext;
  const status = explainCommand(ctx, topic);
  return { status, stdout, stderr };
}

test('pipec explain kafka: both sides, each option with its facts and doc', () => {
  const r = run('kafka');
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^kafka \(connector, source and sink\): Reads or writes one Kafka topic\./);
  const source = r.stdout.slice(r.stdout.indexOf('source options:'), r.stdout.indexOf('sink options:'));
  const sink = r.stdout.slice(r.stdout.indexOf('sink options:'));
  assert.match(source, /^ {2}topic \(string, required\) — The topic read\.$/m);
  assert.match(source, /^ {2}startup \('earliest' \/ 'latest' \/ 'committed', default committed\) — Where a group without committed offsets starts\.$/m);
  assert.match(sink, /^ {2}topic \(string, required\) — The topic written\.$/m);
  // The Kafka sink's delivery default is at-least-once (docs/language-decisions.md "Defaults").
  assert.match(sink, /^ {2}delivery \('exactly-once' \/ 'at-least-once', default at-least-once\) — /m);
  assert.match(r.stdout, /lints: kafka-sink-not-idempotent \(pipec explain <code>\)/);
});

test('every option of every built-in connector is explained, alone and in its connector', () => {
  for (const d of CONNECTORS) {
    const whole = run(d.name);
    assert.equal(whole.status, 0, `${d.name}: ${whole.stderr}`);
    for (const side of [d.source, d.sink]) {
      for (const o of side?.options ?? []) {
        assert.ok(whole.stdout.includes(`\n  ${o.key} (`), `${d.name}: option ${o.key} missing`);
        const one = run(`${d.name}.${o.key}`);
        assert.equal(one.status, 0, `${d.name}.${o.key}: ${one.stderr}`);
        assert.match(one.stdout, new RegExp(`^${d.name} (source|sink) option ${o.key.replace(/\./g, '\\.')} \\(`));
        if (o.secret) assert.match(one.stdout, /secret: use \$\{VAR\}/);
        if (o.required) assert.match(one.stdout, /required/);
      }
    }
  }
});

test('an option key with dots, and a secret one', () => {
  const r = run('kafka.fetch.max_bytes');
  assert.equal(r.stdout, 'kafka source option fetch.max_bytes (integer ≥ 1, default 1048576) — Upper bound of one fetch per partition, in bytes.\n');
  assert.match(run('postgres-cdc.dsn').stdout, /^postgres-cdc source option dsn \(string, required, secret: use \$\{VAR\}\) — Connection string/);
});

test('a connector added to the table is explained from its descriptor', async () => {
  assert.equal(run('toy').status, 1);
  const r = await withConnectors([toy], () => run('toy'));
  assert.equal(r.status, 0, r.stderr);
  for (const o of toy.source!.options) assert.ok(r.stdout.includes(`\n  ${o.key} (`), r.stdout);
});

test('a typo suggests the nearest connector or option; no argument lists the connectors', () => {
  const typo = run('kafka.topc');
  assert.equal(typo.status, 1);
  assert.match(typo.stderr, /no diagnostic code, connector or connector option 'kafka\.topc' — did you mean 'kafka\.topic'\?/);
  assert.match(run('clickhous').stderr, /did you mean 'clickhouse'\?/);
  const all = run(undefined);
  assert.match(all.stdout, /\nconnectors \(pipec explain <connector>\[\.<option>\]\): kafka, postgres-cdc, file, datagen, clickhouse, iceberg, stdout\n$/);
  // Codes still come first and win.
  assert.match(run('missing-env-var').stdout, /^missing-env-var \(error\)/);
});
