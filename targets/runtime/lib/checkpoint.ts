// Checkpoint files: one JSON document per pipeline, replaced atomically (write a temporary
// file, fsync it, rename over the old one, fsync the directory), so a crash at any instant
// leaves either the previous or the new checkpoint, never a torn one.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fsyncDir } from './io/sinks.ts';
import type { TaskEntry } from './member-store.ts';

export interface CheckpointDoc {
  version: 1;
  pipeline: string;
  fingerprint: string;
  seq: number;
  finished: boolean;
  sources: Record<string, { position: unknown; clock: unknown; records: number; dead: number }>;
  operators: Record<string, unknown>;
  sinks: Record<string, unknown>;
  deadLetters: unknown;
  late: Record<string, number>;
  /** Scaled-out runs: the member that wrote it, and its partition tasks by partition id (member-store.ts). */
  member?: string;
  tasks?: Record<string, TaskEntry>;
}

export function checkpointFile(dir: string): string {
  return path.join(dir, 'checkpoint.json');
}

export function readCheckpoint(dir: string): CheckpointDoc | null {
  const f = checkpointFile(dir);
  if (!fs.existsSync(f)) return null;
  return JSON.parse(fs.readFileSync(f, 'utf8')) as CheckpointDoc;
}

/** Writes the checkpoint atomically; returns its size in bytes. */
export function writeCheckpoint(dir: string, doc: CheckpointDoc): number {
  fs.mkdirSync(dir, { recursive: true });
  const f = checkpointFile(dir);
  const tmp = f + '.tmp';
  const text = JSON.stringify(doc);
  const fd = fs.openSync(tmp, 'w');
  try {
    fs.writeSync(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, f);
  fsyncDir(dir);
  return Buffer.byteLength(text);
}
