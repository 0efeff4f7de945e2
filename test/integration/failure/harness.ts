// Shared parts of the pipeline-level failure tests: a .pipe.sql spec compiled by the real
// front end and bundled by the runtime target (the `pipeline.mjs` users run), started as a
// child process so it can be SIGKILLed; seeded event streams; the expected 1-minute window
// rows computed here in plain JS; and what the checkpoint file and the broker say.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { compileFile } from '../../../src/build/compile.ts';
import { runtimeTarget } from '../../../targets/runtime/index.ts';
import { DiagnosticBag } from '../../../src/diagnostics/bag.ts';
import { decodeState } from '../../../targets/runtime/lib/codec.ts';
import type { PlanDoc } from '../../../src/plan/ir.ts';
import { kafkaEnv } from '../kafka/helpers.ts';

export const MIN = 60_000;
export const BASE = Date.UTC(2024, 0, 1, 10, 0, 0);

/** A seeded generator in [0, 1), so a failing schedule can be replayed. */
export function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

/** `2024-01-01 10:00:00.600`: the JSON text of a TIMESTAMP(3) (LANGUAGE.md values). */
export const tsText = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');

export interface Event {
  partition: number;
  k: string;
  amount: number;
  ts: number;
}

/**
 * `n` events over `keys` keys; key i always goes to partition i mod `partitions`, and time
 * only grows, so no event is late on its partition. `stepMs` apart: n × stepMs spans the windows.
 */
export function makeEvents(n: number, keys: number, partitions: number, stepMs: number, seed: number): Event[] {
  const rnd = seeded(seed);
  return Array.from({ length: n }, (_, i) => {
    const key = Math.floor(rnd() * keys);
    return { partition: key % partitions, k: `k${key}`, amount: 1 + Math.floor(rnd() * 1000), ts: BASE + i * stepMs };
  });
}

/** One event per partition far after the others: the watermark passes every window of `events`. */
export function sentinels(events: Event[], partitions: number): Event[] {
  const last = events.reduce((m, e) => Math.max(m, e.ts), BASE);
  return Array.from({ length: partitions }, (_, p) => ({ partition: p, k: `sentinel${p}`, amount: 0, ts: last + 30 * MIN }));
}

export const eventJson = (e: Event): string => JSON.stringify({ k: e.k, amount: e.amount, ts: tsText(e.ts) });

/** `k|window_start|window_end|total|n` per TUMBLE(1 minute) window of the non-sentinel events. */
export function expectedWindows(events: Event[]): string[] {
  const m = new Map<string, { k: string; start: number; total: number; n: number }>();
  for (const e of events) {
    const start = Math.floor(e.ts / MIN) * MIN;
    const id = `${e.k}|${start}`;
    const w = m.get(id) ?? { k: e.k, start, total: 0, n: 0 };
    w.total += e.amount;
    w.n++;
    m.set(id, w);
  }
  return [...m.values()].map((w) => `${w.k}|${tsText(w.start)}|${tsText(w.start + MIN)}|${w.total}|${w.n}`).sort();
}

/** The same key for an output row (JSON from the Kafka sink or a row read back from Iceberg). */
export function windowRow(r: Record<string, unknown>): string {
  const t = (v: unknown): string => String(v).replace('T', ' ').replace(/(\.\d{3})\d*$/, '$1').replace(/ (\d\d:\d\d:\d\d)$/, ' $1.000');
  return `${r.k}|${t(r.window_start)}|${t(r.window_end)}|${r.total}|${r.n}`;
}

/** Produces events in order, in batches of `batch`, `pauseMs` apart (a live topic). */
export async function produceEvents(topic: string, events: Event[], batch = events.length, pauseMs = 0, raw: (e: Event, i: number) => string = eventJson): Promise<void> {
  const { kafka } = await kafkaEnv();
  // Idempotent: a send retried while the broker warms up after a restart must not write its
  // records twice (the expected offsets assume each event is in the topic once).
  const p = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await p.connect();
  try {
    for (let i = 0; i < events.length; i += batch) {
      const part = events.slice(i, i + batch);
      await p.send({ topic, acks: -1, messages: part.map((e, j) => ({ partition: e.partition, key: e.k, value: raw(e, i + j) })) });
      if (pauseMs > 0 && i + batch < events.length) await new Promise((r) => setTimeout(r, pauseMs));
    }
  } finally {
    await p.disconnect();
  }
}

/** Compiles `spec` (written to `dir`) and bundles it; compile errors fail the test. */
export async function bundleSpec(dir: string, spec: string, env: Record<string, string>): Promise<{ bundle: string; plan: PlanDoc }> {
  writeFileSync(path.join(dir, 'spec.pipe.sql'), spec);
  const r = await compileFile('spec.pipe.sql', { cwd: dir, env: { get: (n) => env[n] ?? process.env[n] } });
  assert.deepEqual(
    r.diagnostics.items.filter((d) => d.severity === 'error').map((d) => d.message),
    [],
  );
  const plan = r.plan!;
  const files = await runtimeTarget.emit(plan, { diagnostics: new DiagnosticBag(), readPrevious: () => null });
  // The bundle folder: pipeline.mjs and the runtime.mjs it imports.
  const bundle = path.join(dir, 'pipeline.mjs');
  for (const f of files) if (f.output === 'bundle') writeFileSync(path.join(dir, f.path), f.contents);
  return { bundle, plan };
}

export interface Child {
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
  kill(s: NodeJS.Signals): void;
  exited(): boolean;
  /** What the process wrote to stderr so far (a warning can be waited for while it runs). */
  stderr(): string;
}

/**
 * `node pipeline.mjs --base-dir dir --checkpoint-dir ck [...args]` with `env` added to this
 * process's (`args`: e.g. `--member-id a` for a member of a scaled-out pipeline).
 */
export function startPipeline(bundle: string, dir: string, ck: string, env: Record<string, string>, args: string[] = []): Child {
  const child = spawn(process.execPath, [bundle, '--base-dir', dir, '--checkpoint-dir', ck, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  let exited = false;
  child.stderr.on('data', (d) => (stderr += d));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    child.on('exit', (code, signal) => {
      exited = true;
      resolve({ code, signal, stderr });
    }),
  );
  return { done, kill: (s) => void child.kill(s), exited: () => exited, stderr: () => stderr };
}

export interface CheckpointView {
  seq: number;
  /** Next offset per `<topic>-<partition>` of every source. */
  positions: Record<string, number>;
  sinks: Record<string, unknown>;
}

export function readCheckpointView(ck: string): CheckpointView | null {
  const f = path.join(ck, 'checkpoint.json');
  if (!existsSync(f)) return null;
  try {
    const doc = JSON.parse(readFileSync(f, 'utf8')) as { seq: number; sources: Record<string, { position: unknown }>; sinks: Record<string, unknown> };
    const positions: Record<string, number> = {};
    for (const s of Object.values(doc.sources)) Object.assign(positions, decodeState(s.position) as Record<string, number>);
    return { seq: doc.seq, positions, sinks: doc.sinks };
  } catch {
    return null; // being replaced right now (rename is atomic, but the read may race a crash)
  }
}

/** The log end offset of every partition, as `<topic>-<partition>` → offset. */
export async function endOffsets(topic: string): Promise<Record<string, number>> {
  const { admin } = await kafkaEnv();
  const out: Record<string, number> = {};
  for (const p of await admin.fetchTopicOffsets(topic)) out[`${topic}-${p.partition}`] = Number(p.high);
  return out;
}

/** The checkpoint's positions cover every record of `topic`. */
export async function caughtUp(ck: string, topic: string): Promise<boolean> {
  const v = readCheckpointView(ck);
  if (v === null) return false;
  const end = await endOffsets(topic);
  return Object.entries(end).every(([p, o]) => (v.positions[p] ?? 0) >= o);
}

export async function waitFor(what: string, cond: () => boolean | Promise<boolean>, ms: number, everyMs = 100): Promise<void> {
  const t0 = Date.now();
  while (!(await cond())) {
    if (Date.now() - t0 > ms) throw new Error(`timed out after ${ms / 1000} s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
