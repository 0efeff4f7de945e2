// Exactly-once across crashes: the bundled pipeline (plain `node pipeline.mjs`) is SIGKILLed at
// random moments and restarted from its checkpoint until it finishes; its file sinks must then
// hold exactly what an uninterrupted run writes (no row lost, none twice). Also: SIGTERM
// flushes and checkpoints, and a finished pipeline does not run again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { runtimeTarget } from '../../../targets/runtime/index.ts';
import { DiagnosticBag } from '../../../src/diagnostics/bag.ts';
import { killPlan } from '../../fixtures/runtime/kill-plan.ts';
import { tempDir } from '../../fixtures/runtime/run-helpers.ts';

async function bundle(plan: ReturnType<typeof killPlan>): Promise<string> {
  const files = await runtimeTarget.emit(plan, { diagnostics: new DiagnosticBag(), readPrevious: () => null });
  // The bundle folder: pipeline.mjs and the runtime.mjs it imports.
  const dir = tempDir('pipec-bundle-');
  for (const f of files) if (f.output === 'bundle') writeFileSync(path.join(dir, f.path), f.contents);
  return path.join(dir, 'pipeline.mjs');
}

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

function start(bundleFile: string, dir: string, ck: string | null): { done: Promise<Exit>; kill: (s: NodeJS.Signals) => void } {
  const args = [bundleFile, '--base-dir', dir];
  if (ck) args.push('--checkpoint-dir', ck);
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const done = new Promise<Exit>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stderr })));
  return { done, kill: (s) => child.kill(s) };
}

function ckSeq(ck: string): number {
  try {
    return (JSON.parse(readFileSync(path.join(ck, 'checkpoint.json'), 'utf8')) as { seq: number }).seq;
  } catch {
    return 0;
  }
}

const read = (f: string): string => (existsSync(f) ? readFileSync(f, 'utf8') : '');

// A seeded schedule so a failure can be replayed.
function schedule(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

test('SIGKILL at random points, restart from the checkpoint: output equals an uninterrupted run', { timeout: 240_000 }, async () => {
  const plan = killPlan(120_000, 60_000);
  const bundleFile = await bundle(plan);

  const refDir = tempDir();
  const ref = await start(bundleFile, refDir, null).done;
  assert.equal(ref.code, 0, ref.stderr);
  const refRows = read(path.join(refDir, 'rows.ndjson'));
  const refAgg = read(path.join(refDir, 'agg.ndjson'));
  assert.ok(refRows.split('\n').length > 5000);
  assert.ok(refAgg.split('\n').length > 100);

  for (const seed of [1, 2, 3]) {
    const rnd = schedule(seed);
    const dir = tempDir();
    const ck = path.join(dir, 'ck');
    let kills = 0;
    let resumedMidway = 0;
    let finished = false;
    for (let attempt = 0; attempt < 5; attempt++) {
      if (existsSync(path.join(ck, 'checkpoint.json'))) resumedMidway++;
      const p = start(bundleFile, dir, ck);
      // The first kill may land before any checkpoint; later ones land a random time after the
      // restarted process took a checkpoint of its own (process start-up time varies a lot).
      const seqAtStart = ckSeq(ck);
      const extra = Math.floor(rnd() * 700);
      let timer: NodeJS.Timeout;
      if (attempt === 0) timer = setTimeout(() => p.kill('SIGKILL'), 100 + extra);
      else {
        timer = setInterval(() => {
          if (ckSeq(ck) > seqAtStart) {
            clearInterval(timer);
            timer = setTimeout(() => p.kill('SIGKILL'), extra);
          }
        }, 10);
      }
      const exit = await p.done;
      clearTimeout(timer);
      clearInterval(timer);
      if (exit.signal === 'SIGKILL') {
        kills++;
        continue;
      }
      assert.equal(exit.code, 0, exit.stderr);
      finished = true;
      break;
    }
    if (!finished) {
      const last = await start(bundleFile, dir, ck).done;
      assert.equal(last.code, 0, last.stderr);
    }
    assert.ok(resumedMidway >= 1, `seed ${seed}: no restart resumed from a checkpoint`);
    assert.ok(kills >= 3, `seed ${seed}: the run was interrupted ${kills} times`);
    assert.equal(read(path.join(dir, 'rows.ndjson')), refRows, `seed ${seed}: raw rows differ after ${kills} kills`);
    assert.equal(read(path.join(dir, 'agg.ndjson')), refAgg, `seed ${seed}: window results differ after ${kills} kills`);
  }
});

test('SIGTERM flushes and checkpoints before exiting 143 (128 + SIGTERM, issue 13.6); the restart completes the same output', { timeout: 60_000 }, async () => {
  const plan = killPlan(150_000, 40_000);
  const bundleFile = await bundle(plan);
  const refDir = tempDir();
  assert.equal((await start(bundleFile, refDir, null).done).code, 0);

  const dir = tempDir();
  const ck = path.join(dir, 'ck');
  const p = start(bundleFile, dir, ck);
  // Signal once the pipeline is surely running (it has taken a checkpoint).
  const wait = setInterval(() => {
    if (existsSync(path.join(ck, 'checkpoint.json'))) {
      clearInterval(wait);
      setTimeout(() => p.kill('SIGTERM'), 200);
    }
  }, 20);
  const exit = await p.done;
  assert.equal(exit.code, 143, exit.stderr);
  const doc = JSON.parse(readFileSync(path.join(ck, 'checkpoint.json'), 'utf8')) as { finished: boolean; sinks: Record<string, { bytes: number }> };
  assert.equal(doc.finished, false);
  // Everything written before the stop is durable and recorded.
  assert.equal(doc.sinks.sink_rows!.bytes, Buffer.byteLength(read(path.join(dir, 'rows.ndjson'))));
  const again = await start(bundleFile, dir, ck).done;
  assert.equal(again.code, 0, again.stderr);
  assert.equal(read(path.join(dir, 'rows.ndjson')), read(path.join(refDir, 'rows.ndjson')));
  assert.equal(read(path.join(dir, 'agg.ndjson')), read(path.join(refDir, 'agg.ndjson')));
  // A finished pipeline does not run a second time over its input.
  const third = await start(bundleFile, dir, ck).done;
  assert.equal(third.code, 0);
  assert.match(third.stderr, /already ran to the end/);
  assert.equal(read(path.join(dir, 'agg.ndjson')), read(path.join(refDir, 'agg.ndjson')));
});
