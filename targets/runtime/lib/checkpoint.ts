// Checkpoint files: one JSON document per pipeline (per member when scaled out), replaced
// atomically (write a temporary file, fsync it, rename over the old one, fsync the directory),
// so a crash at any instant leaves either the previous or the new checkpoint. The document
// ends with a SHA-256 of everything before it, so a file torn anyway (a file system that
// acknowledged an fsync it did not do, a copy cut short) or edited is recognised as such; on
// read it is also checked field by field (checkpoint-shape.ts) and against the plan being run.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fsyncDir } from './io/sinks.ts';
import type { TaskEntry } from './member-store.ts';
import { checkAgainstPlan, checkShape, ShapeError, StateChangedError, type PlanParts } from './checkpoint-shape.ts';
import type { StateFingerprints } from './shared/state-compat.ts';

export interface CheckpointDoc {
  /**
   * 3: with `state` (per-part state fingerprints: a changed build resumes when they match);
   * 2: with `checksum` (3 has one too); 1: older files, read without one. 1 and 2 resume only in
   * the build that wrote them.
   */
  version: 1 | 2 | 3;
  pipeline: string;
  /** The whole plan's fingerprint (what formats 1 and 2 compare; scaled-out members compare it too). */
  fingerprint: string;
  /** Format 3: state fingerprints by uid (state-compat.ts). */
  state?: StateFingerprints;
  seq: number;
  finished: boolean;
  sources: Record<string, { position: unknown; clock: unknown; records: number; dead: number }>;
  operators: Record<string, unknown>;
  sinks: Record<string, unknown>;
  deadLetters: { bytes: number; tail?: string } | null;
  late: Record<string, number>;
  /** Scaled-out runs: the member that wrote it, and its partition tasks by partition id (member-store.ts). */
  member?: string;
  tasks?: Record<string, TaskEntry>;
}

/**
 * A checkpoint pipec cannot resume from, or that the pipeline's outputs no longer agree with.
 * The runner prints the message and exits with CHECKPOINT_EXIT_CODE; nothing has been written.
 */
export class CheckpointError extends Error {}

/** Exit code of a run refused because of its checkpoint (sysexits EX_DATAERR). */
export const CHECKPOINT_EXIT_CODE = 65;

/** What every refusal ends with: the user's two ways out, and what starting over means. */
export function startOverAdvice(dir: string): string {
  return (
    `To start over, remove ${dir}: the pipeline then reads its sources from the beginning, ` +
    `file sinks are rewritten from scratch, and sinks outside this machine (Kafka, ClickHouse, Iceberg) ` +
    `receive the rows they already hold again`
  );
}

export function checkpointFile(dir: string): string {
  return path.join(dir, 'checkpoint.json');
}

const CHECKSUM_TAIL = /,"checksum":"sha256:([0-9a-f]{64})"\}$/;
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/**
 * Parses and checks the text of a checkpoint file: JSON, the checksum (version 2), the shape.
 * Throws CheckpointError naming `file` and what is wrong.
 */
export function parseCheckpoint(file: string, text: string): CheckpointDoc {
  const bad = (what: string): never => {
    throw new CheckpointError(`the checkpoint ${file} ${what}`);
  };
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    bad(`is not valid JSON (${(e as Error).message}); it is truncated or was overwritten`);
  }
  const version = (doc as { version?: unknown } | null)?.version;
  if (version === 2 || version === 3) {
    const m = CHECKSUM_TAIL.exec(text);
    if (!m) bad('has no checksum at its end; it is truncated or was not written by pipec');
    if (sha256(text.slice(0, m!.index) + '}') !== m![1]) bad('does not match its checksum; it was changed after pipec wrote it, or written only in part');
  }
  try {
    checkShape(doc);
  } catch (e) {
    if (e instanceof ShapeError) bad(`is not a pipec checkpoint this version can read: ${e.message}`);
    throw e;
  }
  const d = doc as CheckpointDoc & { checksum?: string };
  delete d.checksum;
  return d;
}

/** The checkpoint in `dir`, checked (parseCheckpoint); null when there is none. */
export function readCheckpoint(dir: string): CheckpointDoc | null {
  const f = checkpointFile(dir);
  let text: string;
  try {
    text = fs.readFileSync(f, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new CheckpointError(`cannot read the checkpoint ${f}: ${(e as Error).message}`);
  }
  return parseCheckpoint(f, text);
}

/** Checks a checkpoint read from `dir` against the plan being run (checkAgainstPlan); throws CheckpointError. */
export function checkFits(dir: string, doc: CheckpointDoc, plan: PlanParts): void {
  try {
    checkAgainstPlan(doc as unknown as Record<string, unknown>, plan);
  } catch (e) {
    if (e instanceof StateChangedError)
      throw new CheckpointError(
        `the checkpoint ${checkpointFile(dir)} does not fit this build of the pipeline: ${e.message}. ` +
          `Run the build that took it (\`pipec diff\` shows what changed), or change the spec back`,
      );
    if (e instanceof ShapeError) throw new CheckpointError(`the checkpoint ${checkpointFile(dir)} does not fit this pipeline: ${e.message}`);
    throw e;
  }
}

/** The file text of a checkpoint: its JSON with the SHA-256 of what precedes the checksum as the last field. */
export function checkpointText(doc: CheckpointDoc): string {
  const { version: _v, ...rest } = doc;
  // Format 3 when the document carries state fingerprints (every run writes them); 2 for hand-made documents without.
  const body = JSON.stringify({ version: rest.state ? 3 : 2, ...rest });
  return `${body.slice(0, -1)},"checksum":"sha256:${sha256(body)}"}`;
}

/** Writes the checkpoint atomically; returns its size in bytes. */
export function writeCheckpoint(dir: string, doc: CheckpointDoc): number {
  fs.mkdirSync(dir, { recursive: true });
  const f = checkpointFile(dir);
  const tmp = f + '.tmp';
  const buf = Buffer.from(checkpointText(doc), 'utf8');
  const fd = fs.openSync(tmp, 'w');
  try {
    let off = 0;
    while (off < buf.length) off += fs.writeSync(fd, buf, off, buf.length - off);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, f);
  fsyncDir(dir);
  return buf.length;
}
