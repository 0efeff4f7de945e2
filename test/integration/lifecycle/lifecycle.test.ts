// How `pipec run` ends (issue 13.6), as a user's process: the built CLI as a child process.
// A sink whose ClickHouse table or Kafka topic is missing ends the run at start, non-zero, naming
// it (with the CREATE TABLE for ClickHouse, which is checked by running it); SIGTERM and SIGINT
// stop a running pipeline with 143 / 130 after a checkpoint.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { PIPEC } from '../../cli/run-cli.ts';
import { ensureServices } from '../../support/services.ts';
import { chCommand, chQuery } from '../clickhouse-sink/harness.ts';

interface Running {
  stderr: () => string;
  kill: (sig: NodeJS.Signals) => void;
  exit: Promise<{ code: number | null; ms: number }>;
}

function run(args: string[], cwd: string, env: Record<string, string> = {}): Running {
  const t0 = Date.now();
  const child = spawn(process.execPath, [PIPEC, ...args], { cwd, env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  child.stdout.on('data', () => {});
  const exit = new Promise<{ code: number | null; ms: number }>((resolve) => child.on('exit', (code) => resolve({ code, ms: Date.now() - t0 })));
  return { stderr: () => err, kill: (sig) => child.kill(sig), exit };
}

function dir(files: Record<string, string>): string {
  const d = mkdtempSync(path.join(tmpdir(), 'pipec-life-'));
  for (const [f, text] of Object.entries(files)) writeFileSync(path.join(d, f), text);
  return d;
}

const id = (): string => `${process.pid}_${Date.now().toString(36)}`;

const datagen = (extra: string): string => `CREATE SOURCE ev (id BIGINT NOT NULL, amount DECIMAL(10, 2) NOT NULL, name STRING NOT NULL)
WITH (connector = 'datagen', seed = 7, fields.id.kind = 'sequence', ${extra});`;

test('a ClickHouse sink whose table is missing ends the run at start, naming the table with the CREATE TABLE that makes it work', async (t) => {
  const env = await ensureServices(['clickhouse']);
  const url = env.PIPEC_CLICKHOUSE_URL!;
  const table = `missing_${id()}`;
  t.after(() => chCommand(url, `DROP TABLE IF EXISTS default.${table}`));
  const d = dir({
    'ch.pipe.sql': `PIPELINE ch_missing;
${datagen('total_rows = 500')}
CREATE SINK out FROM ev WITH (connector = 'clickhouse', url = '${url}', table = 'default.${table}', order_by = 'id');
`,
  });
  const r = run(['run', 'ch.pipe.sql'], d);
  const { code, ms } = await r.exit;
  const stderr = r.stderr();
  assert.notEqual(code, 0, stderr);
  assert.ok(ms < 20_000, `took ${ms} ms`);
  assert.match(stderr, new RegExp(`table default\\.${table} does not exist`));
  const ddl = /CREATE TABLE [\s\S]*?;/.exec(stderr)?.[0];
  assert.ok(ddl, stderr);
  assert.ok(!/\n\s+at /.test(stderr), 'no stack trace');
  // The DDL shown is the one to run: with it the same pipeline writes every row.
  await chCommand(url, ddl.replace(/;$/, ''));
  const again = run(['run', 'ch.pipe.sql'], d);
  const second = await again.exit;
  assert.equal(second.code, 0, again.stderr());
  const [n] = await chQuery<{ n: string; s: string }>(url, `SELECT count() AS n, sum(id) AS s FROM default.${table}`);
  // Sequence ids 0..499 (datagen's sequence starts at 0): sum 124750.
  assert.deepEqual({ ...n }, { n: '500', s: '124750' });
});

test('a Kafka sink whose topic is missing ends the run at start, naming the topic (and does not create it)', async () => {
  const env = await ensureServices(['kafka']);
  const topic = `missing-${id()}`;
  const d = dir({
    'k.pipe.sql': `PIPELINE k_missing;
${datagen('rows_per_second = 100')}
CREATE SINK out FROM ev WITH (connector = 'kafka', topic = '${topic}', format = 'json');
`,
  });
  const r = run(['run', 'k.pipe.sql'], d, { PIPEC_KAFKA_BROKERS: env.PIPEC_KAFKA_BROKERS! });
  const { code, ms } = await r.exit;
  const stderr = r.stderr();
  assert.notEqual(code, 0, stderr);
  assert.ok(ms < 30_000, `took ${ms} ms`);
  assert.match(stderr, new RegExp(`sink 'out': the Kafka topic '${topic}' does not exist`));
  const kafka = new Kafka({ clientId: 'pipec-test', brokers: env.PIPEC_KAFKA_BROKERS!.split(','), logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  try {
    assert.ok(!(await admin.listTopics()).includes(topic), 'the check must not create the topic');
  } finally {
    await admin.disconnect();
  }
});

for (const [sig, expected] of [
  ['SIGTERM', 143],
  ['SIGINT', 130],
] as const) {
  test(`${sig} during a running datagen pipeline ends it with ${expected} after a checkpoint`, async () => {
    const d = dir({
      'g.pipe.sql': `PIPELINE gen_${sig.toLowerCase()} WITH (checkpoint_interval = '1 h');
${datagen('rows_per_second = 500')}
CREATE SINK out FROM ev WITH (connector = 'file', path = 'out.ndjson', format = 'ndjson');
`,
    });
    const ck = path.join(d, 'ck');
    const r = run(['run', 'g.pipe.sql', '--checkpoint-dir', ck], d);
    const out = path.join(d, 'out.ndjson');
    const t0 = Date.now();
    while (!(existsSync(out) && readFileSync(out, 'utf8').split('\n').length > 50) && Date.now() - t0 < 60_000) await new Promise((res) => setTimeout(res, 100));
    assert.ok(!existsSync(path.join(ck, 'checkpoint.json')), 'no checkpoint before the signal (interval 1 h)');
    const sent = Date.now();
    r.kill(sig);
    const { code } = await r.exit;
    assert.equal(code, expected, r.stderr());
    assert.ok(Date.now() - sent < 10_000, `stopped in ${Date.now() - sent} ms`);
    // The checkpoint taken on the way out covers exactly what the file holds.
    const doc = JSON.parse(readFileSync(path.join(ck, 'checkpoint.json'), 'utf8')) as { finished: boolean; sources: Record<string, { records: number }> };
    assert.equal(doc.finished, false);
    const lines = readFileSync(out, 'utf8').split('\n').filter((l) => l !== '');
    assert.equal(Object.values(doc.sources)[0]!.records, lines.length);
    assert.match(r.stderr(), new RegExp(`${sig}: stopping`));
    assert.doesNotMatch(r.stderr(), /Warning|failed/, 'a clean stop says nothing else');
  });
}
