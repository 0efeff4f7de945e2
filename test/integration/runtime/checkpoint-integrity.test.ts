// What a run does with a checkpoint it must not trust (docs/security.md, "Checkpoints"): a
// garbage, truncated, edited or structurally wrong checkpoint.json, a second run on the same
// checkpoint directory, and file-sink output deleted, truncated or modified between a stop and
// the restart. Each is refused before anything is written — exit 65 (checkpoint) or 75 (locked)
// with a message naming the file — and once the damage is undone the pipeline still resumes
// to exactly the output of an uninterrupted run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { runtimeTarget } from '../../../targets/runtime/index.ts';
import { DiagnosticBag } from '../../../src/diagnostics/bag.ts';
import { checkpointText, type CheckpointDoc } from '../../../targets/runtime/lib/checkpoint.ts';
import { killPlan } from '../../fixtures/runtime/kill-plan.ts';
import { runPlan, tempDir } from '../../fixtures/runtime/run-helpers.ts';

const read = (f: string): string => (existsSync(f) ? readFileSync(f, 'utf8') : '');
const readBytes = (f: string): Buffer => readFileSync(f);

/** Every file under `dir` (sorted, relative) with its bytes: "nothing was written" compares two of these. */
function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const f = path.join(d, e.name);
      if (e.isDirectory()) walk(f);
      else out.set(path.relative(dir, f), readFileSync(f).toString('base64'));
    }
  };
  walk(dir);
  return out;
}

async function until(cond: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * A pipeline stopped midway (abort = the SIGTERM path: flush, checkpoint) and the output of an
 * uninterrupted run of the same plan. 60,000 rows at 30,000/s: the stop lands well before the end.
 */
async function stoppedMidway(parquet = false): Promise<{ plan: ReturnType<typeof killPlan>; dir: string; ck: string; ref: string }> {
  const plan = killPlan(60_000, 30_000, 100, parquet);
  const ref = tempDir();
  assert.equal((await runPlan(plan, { dir: ref })).exitCode, 0);
  const dir = tempDir();
  const ck = path.join(dir, 'ck');
  const ac = new AbortController();
  const run = runPlan(plan, { dir, checkpointDir: ck, signal: ac.signal });
  // With Parquet, a part is out before the stop, whose checkpoint writes at least one more.
  const parts = (): number => (existsSync(path.join(dir, 'rows-pq')) ? readdirSync(path.join(dir, 'rows-pq')).filter((f) => f.endsWith('.parquet')).length : 0);
  await until(() => existsSync(path.join(ck, 'checkpoint.json')) && read(path.join(dir, 'rows.ndjson')).length > 5000 && (!parquet || parts() >= 1));
  ac.abort();
  const r = await run;
  assert.equal(r.exitCode, 0, r.stderr);
  const doc = JSON.parse(read(path.join(ck, 'checkpoint.json'))) as CheckpointDoc;
  assert.equal(doc.finished, false, 'stopped before the end of its input');
  return { plan, dir, ck, ref };
}

/** The stopped run, resumed to its end, wrote what the uninterrupted run wrote: no row lost, none twice. */
async function finishesLikeReference(plan: ReturnType<typeof killPlan>, dir: string, ck: string, ref: string): Promise<void> {
  const r = await runPlan(plan, { dir, checkpointDir: ck });
  assert.equal(r.exitCode, 0, r.stderr);
  assert.equal(read(path.join(dir, 'rows.ndjson')), read(path.join(ref, 'rows.ndjson')));
  assert.equal(read(path.join(dir, 'agg.ndjson')), read(path.join(ref, 'agg.ndjson')));
}

test('a garbage, truncated, edited or structurally wrong checkpoint is refused naming the file; nothing is written', { timeout: 120_000 }, async () => {
  const { plan, dir, ck, ref } = await stoppedMidway();
  const file = path.join(ck, 'checkpoint.json');
  const good = read(file);
  const doc = JSON.parse(good) as CheckpointDoc & { checksum?: string };
  delete doc.checksum;
  const sourceId = Object.keys(doc.sources)[0]!;
  const { [sourceId]: _dropped, ...otherSources } = doc.sources;
  const opId = Object.keys(doc.state!.operators)[0]!;
  const { state: _state, ...withoutState } = doc;
  const cases: [string, string, RegExp][] = [
    ['garbage', 'PK\u0003\u0004 not a checkpoint', /is not valid JSON/],
    ['empty', '', /is not valid JSON/],
    ['truncated', good.slice(0, Math.floor(good.length / 2)), /is not valid JSON/],
    ['edited without its checksum', good.replace(/"seq":(\d+)/, (_m, n: string) => `"seq":${Number(n) + 1}`), /does not match its checksum/],
    ['checksum cut off', good.replace(/,"checksum":"[^"]*"\}$/, '}'), /has no checksum/],
    // Re-signed, so only the structure is wrong: the source entry is gone (before, the source
    // restarted from its beginning while the sinks resumed, writing every row again).
    ['a source entry missing', checkpointText({ ...doc, sources: otherSources }), new RegExp(`sources has no entry for '${sourceId}'`)],
    ['a field of the wrong type', checkpointText({ ...doc, seq: 'three' as unknown as number }), /seq must be a non-negative integer, got "three"/],
    ['not an object', '[1, 2, 3]', /the document must be an object/],
    ['another pipeline', checkpointText({ ...doc, pipeline: 'other' }), /belongs to pipeline 'other', not 'kill_test'/],
    // A build whose operator keeps its state in another layout (its fingerprint differs): the refusal names the operator.
    ['an operator of another state layout', checkpointText({ ...doc, state: { ...doc.state!, operators: { ...doc.state!.operators, [opId]: '0123456789abcdef' } } }), new RegExp(`does not fit this build of the pipeline: the state layout of operator '${opId}' changed since it was taken\\. Run the build that took it \\(\`pipec diff\` shows what changed\\)`)],
    // Format 2 recorded no per-operator fingerprints: only the build that wrote it may resume it.
    ['format 2 of another version', checkpointText({ ...withoutState, fingerprint: '0123456789abcdef' }), /taken by a different version of pipeline 'kill_test' and is of checkpoint format 2, which records no per-operator state fingerprints/],
  ];
  for (const [what, text, why] of cases) {
    writeFileSync(file, text);
    const before = snapshot(dir);
    const r = await runPlan(plan, { dir, checkpointDir: ck });
    assert.equal(r.exitCode, 65, `${what}: ${r.stderr}`);
    assert.ok(r.stderr.includes(file), `${what}: the message names the file: ${r.stderr}`);
    assert.match(r.stderr, why, what);
    assert.match(r.stderr, /To start over, remove .*: the pipeline then reads its sources from the beginning/, what);
    assert.equal(r.stderr.split('\n').filter((l) => l !== '').length, 1, `${what}: one message, no stack trace: ${r.stderr}`);
    assert.deepEqual(snapshot(dir), before, `${what}: nothing was written`);
  }
  // Put back, the checkpoint resumes to exactly the uninterrupted output.
  writeFileSync(file, good);
  await finishesLikeReference(plan, dir, ck, ref);
});

test('a checkpoint of the earlier format (version 1, no checksum) still resumes', { timeout: 60_000 }, async () => {
  const { plan, dir, ck, ref } = await stoppedMidway();
  const file = path.join(ck, 'checkpoint.json');
  const doc = JSON.parse(read(file)) as Record<string, unknown>;
  delete doc.checksum;
  delete doc.state;
  writeFileSync(file, JSON.stringify({ ...doc, version: 1 }));
  await finishesLikeReference(plan, dir, ck, ref);
});

test('an NDJSON output deleted, truncated or modified after the stop: the restart refuses, naming the file; restored, it resumes', { timeout: 120_000 }, async () => {
  const { plan, dir, ck, ref } = await stoppedMidway();
  const rows = path.join(dir, 'rows.ndjson');
  const good = readBytes(rows);
  const recorded = (JSON.parse(read(path.join(ck, 'checkpoint.json'))) as CheckpointDoc).sinks.sink_rows as { bytes: number };
  assert.equal(recorded.bytes, good.length, 'the stop checkpointed everything written');
  const modified = Buffer.from(good);
  // One digit of the last row, inside the stretch of the file the checkpoint fingerprints.
  const at = modified.lastIndexOf('"v":') + 4;
  modified[at] = modified[at] === 0x39 ? 0x38 : 0x39;
  const cases: [string, () => void, RegExp][] = [
    ['deleted', () => rmSync(rows), /the file is gone; the checkpoint recorded \d+ bytes of it/],
    ['truncated', () => truncateSync(rows, Math.floor(good.length / 2)), /the file holds \d+ bytes, fewer than the \d+ the checkpoint recorded/],
    ['modified', () => writeFileSync(rows, modified), /its content before byte \d+ is not what the checkpoint recorded/],
  ];
  for (const [what, damage, why] of cases) {
    damage();
    const before = snapshot(dir);
    const r = await runPlan(plan, { dir, checkpointDir: ck });
    assert.equal(r.exitCode, 65, `${what}: ${r.stderr}`);
    assert.ok(r.stderr.includes(`pipec: sink 'rows': cannot resume ${rows}: `), `${what}: names the sink and the file: ${r.stderr}`);
    assert.match(r.stderr, why, what);
    assert.match(r.stderr, /Put the output back as the last run left it, or start over/, what);
    // Refused before anything changed: no file re-created, no NUL padding, no checkpoint written.
    assert.deepEqual(snapshot(dir), before, `${what}: nothing was written`);
    writeFileSync(rows, good);
  }
  await finishesLikeReference(plan, dir, ck, ref);
});

test('a Parquet output with a part file gone or replaced is refused; restored, it resumes', { timeout: 120_000 }, async () => {
  const { plan, dir, ck, ref } = await stoppedMidway(true);
  const pq = path.join(dir, 'rows-pq');
  const parts = readdirSync(pq).sort();
  assert.ok(parts.length >= 2, `several checkpoints wrote parts: ${parts.join(', ')}`);
  const first = path.join(pq, parts[0]!);
  const keep = readBytes(first);
  rmSync(first);
  let r = await runPlan(plan, { dir, checkpointDir: ck });
  assert.equal(r.exitCode, 65, r.stderr);
  assert.match(r.stderr, new RegExp(`sink 'pq': cannot resume ${pq.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: the checkpoint recorded ${parts.length} part files, but ${parts[0]} is gone`));
  writeFileSync(first, Buffer.concat([keep, Buffer.from('x')]));
  r = await runPlan(plan, { dir, checkpointDir: ck });
  assert.equal(r.exitCode, 65, r.stderr);
  assert.match(r.stderr, /part files hold \d+ bytes, not the \d+ the checkpoint recorded/);
  writeFileSync(first, keep);
  await finishesLikeReference(plan, dir, ck, ref);
  assert.deepEqual(readdirSync(pq).length > parts.length, true, 'the resumed run wrote further parts');
});

test('two runs in one process on one checkpoint directory: the second is refused at once', { timeout: 60_000 }, async () => {
  const plan = killPlan(60_000, 20_000);
  const dir = tempDir();
  const ck = path.join(dir, 'ck');
  const ac = new AbortController();
  const first = runPlan(plan, { dir, checkpointDir: ck, signal: ac.signal });
  await until(() => existsSync(path.join(ck, 'checkpoint.json')));
  const other = tempDir();
  const second = await runPlan(plan, { dir: other, checkpointDir: ck });
  assert.equal(second.exitCode, 75, second.stderr);
  assert.match(second.stderr, new RegExp(`the checkpoint directory ${ck.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is in use by this process`));
  assert.deepEqual(readdirSync(other), [], 'the refused run wrote nothing');
  ac.abort();
  assert.equal((await first).exitCode, 0);
  assert.equal(existsSync(path.join(ck, 'lock')), false, 'the lock goes with the run');
});

// ---------------------------------------------------------------- bundled pipeline, child processes

async function bundle(plan: ReturnType<typeof killPlan>): Promise<string> {
  const files = await runtimeTarget.emit(plan, { diagnostics: new DiagnosticBag(), readPrevious: () => null });
  // The bundle folder: pipeline.mjs and the runtime.mjs it imports.
  const dir = tempDir('pipec-bundle-');
  for (const f of files) if (f.output === 'bundle') writeFileSync(path.join(dir, f.path), f.contents);
  return path.join(dir, 'pipeline.mjs');
}

function start(bundleFile: string, dir: string, ck: string | null): { pid: number; done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>; kill: (s: NodeJS.Signals) => void } {
  const args = [bundleFile, '--base-dir', dir, ...(ck ? ['--checkpoint-dir', ck] : [])];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stderr })));
  return { pid: child.pid!, done, kill: (s) => void child.kill(s) };
}

test('bundle: a second process on a checkpoint directory exits at once naming it and the holder; after a SIGKILL the lock is stale and the restart resumes exactly once', { timeout: 120_000 }, async () => {
  const plan = killPlan(80_000, 20_000);
  const bundleFile = await bundle(plan);
  const ref = tempDir();
  const r0 = await start(bundleFile, ref, null).done;
  assert.equal(r0.code, 0, r0.stderr);

  const dir = tempDir();
  const ck = path.join(dir, 'ck');
  const a = start(bundleFile, dir, ck);
  await until(() => existsSync(path.join(ck, 'checkpoint.json')));
  // The second process: same checkpoint directory, even another base directory.
  const t0 = Date.now();
  const b = await start(bundleFile, tempDir(), ck).done;
  assert.equal(b.code, 75, b.stderr);
  assert.ok(b.stderr.includes(`the checkpoint directory ${ck} is in use by process ${a.pid} on this host`), b.stderr);
  assert.ok(Date.now() - t0 < 10_000, 'refused at once');
  // SIGKILL leaves the lock behind; its holder is gone, so the next run takes it over.
  a.kill('SIGKILL');
  assert.equal((await a.done).signal, 'SIGKILL');
  assert.ok(existsSync(path.join(ck, 'lock')), 'a killed run cannot remove its lock');
  const c = await start(bundleFile, dir, ck).done;
  assert.equal(c.code, 0, c.stderr);
  assert.equal(read(path.join(dir, 'rows.ndjson')), read(path.join(ref, 'rows.ndjson')));
  assert.equal(read(path.join(dir, 'agg.ndjson')), read(path.join(ref, 'agg.ndjson')));
  assert.equal(existsSync(path.join(ck, 'lock')), false);
});

test('bundle: a garbage checkpoint ends the process with exit 65 and a message naming the file, not a stack trace', { timeout: 60_000 }, async () => {
  const bundleFile = await bundle(killPlan(1000, 0));
  const dir = tempDir();
  const ck = path.join(dir, 'ck');
  mkdirSync(ck);
  writeFileSync(path.join(ck, 'checkpoint.json'), '{"version":2,"seq":');
  const r = await start(bundleFile, dir, ck).done;
  assert.equal(r.code, 65, r.stderr);
  assert.match(r.stderr, new RegExp(`^pipec: the checkpoint ${path.join(ck, 'checkpoint.json').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not valid JSON`));
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  assert.equal(existsSync(path.join(dir, 'rows.ndjson')), false, 'no output written');
});
