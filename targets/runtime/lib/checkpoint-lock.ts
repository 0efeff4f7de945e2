// The lock a run holds on its checkpoint directory, so that two processes never resume from
// and write the same checkpoint (each would replay the other's input and write its rows
// again). A file `lock`, created exclusively (link(2) fails when it exists), holds the
// holder's pid, host and process start; it is removed when the run ends. A run killed with
// SIGKILL leaves it behind: a later run on the same host breaks it when that pid is gone (or
// is now another process: its start time differs, or it is the caller itself in a restarted
// container). On another host pipec cannot
// tell, and says whom to ask. Scaled out, every member locks its own directory
// (`<dir>/members/<member>/`), never the shared root: members run side by side by design, and
// two processes with the same member id are refused as they should be.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { hostname } from 'node:os';

/** Exit code of a run refused because another run holds its checkpoint directory (sysexits EX_TEMPFAIL). */
export const LOCKED_EXIT_CODE = 75;

export class LockedError extends Error {}

interface Holder {
  pid: number;
  host: string;
  /** Start of the holder process (Linux: clock ticks since boot from /proc; else null). */
  procStart: string | null;
  /** When it took the lock (ISO time), for the message. */
  since: string;
}

/** Lock files this process holds (a second run inside one process is refused too). */
const held = new Set<string>();

/** Fields 3… of /proc/<pid>/stat (state, ppid, …), or null where /proc is not available. */
function procStat(pid: number): string[] | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After the command name, which may hold spaces and parentheses.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** The start time of process `pid` as the kernel records it (field 22, clock ticks since boot), or null. */
function procStart(pid: number): string | null {
  return procStat(pid)?.[19] ?? null;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  // A killed process its parent has not reaped yet still answers signal 0.
  const state = procStat(pid)?.[0];
  return state !== 'Z' && state !== 'X';
}

function readHolder(file: string): Holder | null {
  try {
    const h = JSON.parse(fs.readFileSync(file, 'utf8')) as Holder;
    return typeof h.pid === 'number' && typeof h.host === 'string' ? h : null;
  } catch {
    return null;
  }
}

/** The lock of `file` is left over from a process that no longer runs (only decidable on its host). */
function stale(file: string, h: Holder): boolean {
  if (h.host !== hostname()) return false;
  if (h.pid === process.pid) return !held.has(file);
  if (!alive(h.pid)) return true;
  const now = procStart(h.pid);
  return h.procStart !== null && now !== null && now !== h.procStart;
}

export class CheckpointLock {
  private constructor(readonly file: string, private readonly text: string) {}

  /**
   * Takes the lock of checkpoint directory `dir` (creating the directory) or throws
   * LockedError naming the directory and the holder.
   */
  static acquire(dir: string, pipeline: string): CheckpointLock {
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'lock');
    const me: Holder & { pipeline: string } = { pid: process.pid, host: hostname(), procStart: procStart(process.pid), since: new Date().toISOString(), pipeline };
    const text = JSON.stringify(me) + '\n';
    for (let attempt = 0; attempt < 3; attempt++) {
      // Written whole under a name of its own, then linked into place (atomic, fails if the
      // lock exists): a reader never sees a half-written lock.
      const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}`;
      try {
        fs.writeFileSync(tmp, text);
        fs.linkSync(tmp, file);
        held.add(file);
        return new CheckpointLock(file, text);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw new LockedError(`cannot lock the checkpoint directory ${dir} (${file}): ${(e as Error).message}`);
      } finally {
        fs.rmSync(tmp, { force: true });
      }
      const h = readHolder(file);
      if (h === null) {
        // Removed by its holder this instant (try again), or not a lock pipec wrote.
        if (!fs.existsSync(file)) continue;
        throw new LockedError(`the checkpoint directory ${dir} is locked (${file} exists but names no holder); if no pipeline runs on it, remove ${file}`);
      }
      if (!stale(file, h)) {
        const who = h.pid === process.pid && h.host === me.host ? 'this process' : `process ${h.pid} on ${h.host === me.host ? 'this host' : `host ${h.host}`}`;
        throw new LockedError(
          `the checkpoint directory ${dir} is in use by ${who} (since ${h.since}): two runs on one checkpoint would both write every row. ` +
            (h.host === me.host ? 'Stop that run first, or give this one its own --checkpoint-dir' : `Stop that run first; if it is gone, remove ${file}`),
        );
      }
      breakStale(file, h);
    }
    throw new LockedError(`the checkpoint directory ${dir} is locked by a run that keeps changing (${file}); try again`);
  }

  /** Gives the lock up (only if it is still this run's). */
  release(): void {
    held.delete(this.file);
    try {
      if (fs.readFileSync(this.file, 'utf8') === this.text) fs.rmSync(this.file);
    } catch {
      // Already gone: nothing to release.
    }
  }
}

/**
 * Removes a stale lock, unless another process replaced it meanwhile: runs breaking the same
 * stale lock take turns through `lock.break` (mkdir is atomic), and each re-reads the lock
 * under it, so one stale lock is removed once and a fresh one never.
 */
function breakStale(file: string, h: Holder): void {
  const guard = file + '.break';
  try {
    fs.mkdirSync(guard);
  } catch {
    // Another run is breaking it: let it finish (a guard left by a crash goes after 10 s).
    try {
      if (Date.now() - fs.statSync(guard).mtimeMs > 10_000) fs.rmdirSync(guard);
    } catch {
      // gone meanwhile
    }
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
    return;
  }
  try {
    const now = readHolder(file);
    if (now !== null && now.pid === h.pid && now.since === h.since && now.host === h.host) fs.rmSync(file, { force: true });
  } finally {
    fs.rmdirSync(guard);
  }
}
