// The runtime's library API (docs/api.md): `start(def, opts)` runs a pipeline in-process and
// hands back a RunHandle — metrics while it runs, `stop()` (checkpoint, close), `done` with how
// it ended or the typed RunError that ended it; it installs no signal handlers and prints no error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from '../../../src/api.ts';
import { generateBody } from '../../../targets/runtime/codegen/module.ts';
import { instantiateBody } from '../../../targets/runtime/instantiate-body.ts';
import { start, exitCodeOf, CheckpointLockedError, RunError } from '../../../targets/runtime/lib/index.ts';
import type { PipelineDef } from '../../../targets/runtime/lib/pipeline-types.ts';

const spec = (rows: string): string => `
PIPELINE api_start WITH (checkpoint_interval = '1 s');
CREATE SOURCE clicks (
  id   BIGINT NOT NULL,
  page STRING NOT NULL
) WITH (
  connector           = 'datagen',
  ${rows},
  seed                = 7,
  fields.id.kind      = 'sequence',
  fields.page.kind    = 'choice',
  fields.page.values  = '/a,/b'
);
CREATE VIEW seen AS SELECT id, page FROM clicks;
CREATE SINK out FROM seen WITH (connector = 'file', path = 'out.ndjson', format = 'ndjson');
`;

/** What a user does with the generated module: `{ ...definePipeline(env), modules }`. */
async function pipeline(rows: string): Promise<PipelineDef> {
  const r = await build({ sources: { 'api-start.pipe.sql': spec(rows) }, targets: ['runtime'] });
  assert.ok(r.ok, JSON.stringify(r.diagnostics));
  const plan = r.plans.api_start!;
  const gen = generateBody(plan);
  return instantiateBody(gen.body, {}, gen.modules.map((m) => m.module));
}

async function until(what: string, cond: () => boolean, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('start() runs an unbounded datagen pipeline; metrics() while it runs; stop() checkpoints and done resolves', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pipec-start-'));
  try {
    const def = await pipeline("rows_per_second = 400");
    const signals = process.listenerCount('SIGINT') + process.listenerCount('SIGTERM');
    let stderr = '';
    const run = start(def, { baseDir: dir, checkpointDir: join(dir, 'ck'), env: {}, stdout: () => {}, stderr: (t) => (stderr += t) });
    assert.equal(process.listenerCount('SIGINT') + process.listenerCount('SIGTERM'), signals, 'a library run leaves the process signals alone');
    await until('50 records in', () => (run.metrics().recordsIn.clicks ?? 0) >= 50);
    const during = run.metrics();
    assert.equal(during.pipeline, 'api_start');
    assert.ok(during.recordsIn.clicks! >= 50);

    const result = await run.stop();
    assert.deepEqual(result, { how: 'stopped', signal: null });
    assert.deepEqual(await run.done, result);
    const after = run.metrics();
    // A pass-through view: every record read is a row written, and the file holds them all (flushed at the stop's checkpoint).
    const lines = readFileSync(join(dir, 'out.ndjson'), 'utf8').split('\n').filter((l) => l !== '');
    assert.ok(after.recordsIn.clicks! >= during.recordsIn.clicks!);
    assert.equal(after.recordsOut.out, after.recordsIn.clicks);
    assert.equal(lines.length, after.recordsIn.clicks);
    assert.deepEqual(JSON.parse(lines[0]!), { id: 0, page: JSON.parse(lines[0]!).page });
    assert.ok(['/a', '/b'].includes(JSON.parse(lines[0]!).page));
    // The stop took a checkpoint the next run resumes from (not a finished one: the input is unbounded).
    assert.ok(after.checkpoints >= 1 && after.lastCheckpointAt !== null);
    const ck = JSON.parse(readFileSync(join(dir, 'ck', 'checkpoint.json'), 'utf8').replace(/,"checksum":"[^"]+"\}$/, '}'));
    assert.equal(ck.finished, false);
    assert.equal(ck.sources[Object.keys(ck.sources)[0]!].records, after.recordsIn.clicks);
    assert.match(run.prometheus(), new RegExp(`pipec_records_in_total\\{pipeline="api_start",source="clicks"\\} ${after.recordsIn.clicks}\\n`));
    assert.doesNotMatch(stderr, /failed|error/i);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a bounded pipeline finishes by itself: done resolves with how = finished', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pipec-start-'));
  try {
    // An application-wide abort signal: a finished run lets go of it.
    const app = new AbortController();
    const listeners: unknown[] = [];
    const add = app.signal.addEventListener.bind(app.signal);
    const remove = app.signal.removeEventListener.bind(app.signal);
    app.signal.addEventListener = ((type: string, l: EventListener, o?: AddEventListenerOptions) => (listeners.push(l), add(type, l, o))) as typeof app.signal.addEventListener;
    app.signal.removeEventListener = ((type: string, l: EventListener) => (listeners.splice(listeners.indexOf(l), 1), remove(type, l))) as typeof app.signal.removeEventListener;
    const run = start(await pipeline('total_rows = 300'), { baseDir: dir, env: {}, signal: app.signal, stdout: () => {}, stderr: () => {} });
    assert.deepEqual(await run.done, { how: 'finished', signal: null });
    assert.equal(listeners.length, 0, 'the run removed its listener from the signal');
    assert.equal(run.metrics().recordsOut.out, 300);
    assert.equal(readFileSync(join(dir, 'out.ndjson'), 'utf8').trimEnd().split('\n').length, 300);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a refused start rejects done with a typed error and prints nothing; the exit code comes from its code', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pipec-start-'));
  try {
    const def = await pipeline('rows_per_second = 100');
    const first = start(def, { baseDir: dir, checkpointDir: join(dir, 'ck'), env: {}, stdout: () => {}, stderr: () => {} });
    await until('the first run reading', () => (first.metrics().recordsIn.clicks ?? 0) > 0);
    let stderr = '';
    const second = start(def, { baseDir: join(dir, 'b'), checkpointDir: join(dir, 'ck'), env: {}, stdout: () => {}, stderr: (t) => (stderr += t) });
    const e = await second.done.then(
      () => assert.fail('a second run on a locked checkpoint directory must not start'),
      (x: unknown) => x,
    );
    assert.ok(e instanceof CheckpointLockedError && e instanceof RunError);
    assert.equal(e.code, 'locked');
    assert.equal(exitCodeOf(e), 75);
    assert.match(e.message, /ck/);
    assert.equal(stderr, '', 'the engine prints no error that ends the run: the caller does');
    assert.equal(existsSync(join(dir, 'b', 'out.ndjson')), false, 'nothing was written');
    await first.stop();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
