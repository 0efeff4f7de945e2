// The shared checkpoint store of a scaled-out pipeline (`scale_out = 'partitions'`): every
// member checkpoints into its own directory under one shared root, and a partition's task
// state (operator state, watermark, position) travels between members through these files.
//
//   <root>/members/<member>/checkpoint.json   one member's checkpoint (atomic, as always),
//                                             with a `tasks` entry per partition it holds or
//                                             has released
//
// Ownership of a partition's state is decided by its entries alone: the entry with the highest
// epoch (then the furthest position) is the newest. A member that takes a partition over waits
// until that entry is released by its holder — written by the holder's checkpoint at the moment
// it lost the partition, so it covers every record the holder processed — and then continues
// from it with epoch + 1. A holder that never releases (it died) is waited for only up to the
// handover timeout; its last checkpoint is then the state, which is consistent with its sinks:
// what it wrote after that checkpoint was never committed.
import type { StateFingerprints } from './shared/state-compat.ts';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CheckpointError, parseCheckpoint, type CheckpointDoc } from './checkpoint.ts';

/** The state of one partition's task, as a member's checkpoint records it. */
export interface TaskEntry {
  /** Counts hand-overs: each new holder writes epoch + 1. */
  epoch: number;
  /** The holder lost the partition; this is its final state (nothing processed after it). */
  released: boolean;
  /** Next offset to read; null when the holder had not read any record. */
  next: number | null;
  /** Highest event time seen, and whether the partition ended (partition clock). */
  maxTs: number;
  done: boolean;
  /** The task's watermark (operators restore their own). */
  wm: number;
  /** Operator state by operator id (encoded with codec.ts). */
  operators: Record<string, unknown>;
}

/** The newest entry of a partition and where it was found. */
export interface FoundEntry {
  member: string;
  fingerprint: string;
  /** The writer's state fingerprints (checkpoint format 3), or undefined (older formats). */
  state: StateFingerprints | undefined;
  entry: TaskEntry;
}

export class HandoverError extends Error {}

/** A member id names a directory: letters, digits, `.`, `_`, `-` only. */
export function checkMemberId(id: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(id)) {
    throw new HandoverError(`member id '${id}' must be 1–128 letters, digits, '.', '_' or '-' (it names the member's checkpoint directory)`);
  }
  return id;
}

export function memberDir(root: string, member: string): string {
  return path.join(root, 'members', member);
}

/** Orders entries: higher epoch wins, then the further position (a holder that read nothing loses). */
function newer(a: TaskEntry, b: TaskEntry): boolean {
  if (a.epoch !== b.epoch) return a.epoch > b.epoch;
  return (a.next ?? -1) > (b.next ?? -1);
}

export class MemberStore {
  constructor(
    readonly root: string,
    readonly member: string,
  ) {}

  /** Every member's last checkpoint, read once (a look at several partitions shares it). */
  read(): { member: string; doc: CheckpointDoc }[] {
    const membersRoot = path.join(this.root, 'members');
    let names: string[];
    try {
      names = fs.readdirSync(membersRoot);
    } catch {
      return [];
    }
    const out: { member: string; doc: CheckpointDoc }[] = [];
    for (const m of names.sort()) {
      const doc = readDoc(path.join(membersRoot, m, 'checkpoint.json'));
      if (doc) out.push({ member: m, doc });
    }
    return out;
  }

  /** The newest entry of `partition` across every member's last checkpoint (`docs`: from `read()`), or null. */
  latest(partition: string, docs = this.read()): FoundEntry | null {
    let best: FoundEntry | null = null;
    for (const { member, doc } of docs) {
      const e = doc.tasks?.[partition];
      if (e && (best === null || newer(e, best.entry))) best = { member, fingerprint: doc.fingerprint, state: doc.state, entry: e };
    }
    return best;
  }
}

function readDoc(file: string): CheckpointDoc | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    // Absent (member never checkpointed) reads as nothing.
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new HandoverError(`cannot read ${file}: ${(e as Error).message}`);
  }
  try {
    // Checksum and shape: a partition's state is taken from this file.
    return parseCheckpoint(file, text);
  } catch (e) {
    if (e instanceof CheckpointError) throw new HandoverError(e.message);
    throw e;
  }
}
