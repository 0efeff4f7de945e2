// The exact shape of a checkpoint document (checkpoint.ts), checked field by field when a
// checkpoint is read: a file that parses but is not what pipec wrote (edited by hand, written
// by another tool, a different format version) must be refused with the field at fault, not
// half-restored — a missing `sources` entry once restarted a source from its beginning while
// its sinks resumed, writing every row again. Hand-written rather than a JSON Schema: the
// runtime bundle stays free of a schema compiler, and each message names the JSON path.

import { compareState, refusalText, type StateFingerprints, type StateVerdict } from './shared/state-compat.ts';

/** What is wrong, with the JSON path of the field (`sources.events.records`). */
export class ShapeError extends Error {}

type Obj = Record<string, unknown>;

const show = (v: unknown): string => {
  const t = JSON.stringify(v);
  return t === undefined ? String(v) : t.length > 40 ? t.slice(0, 37) + '...' : t;
};

function fail(at: string, want: string, got: unknown): never {
  throw new ShapeError(got === undefined ? `${at} is missing (expected ${want})` : `${at} must be ${want}, got ${show(got)}`);
}

function obj(v: unknown, at: string): Obj {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) fail(at, 'an object', v);
  return v as Obj;
}

function count(v: unknown, at: string): void {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) fail(at, 'a non-negative integer', v);
}

function str(v: unknown, at: string): void {
  if (typeof v !== 'string' || v === '') fail(at, 'a non-empty string', v);
}

function bool(v: unknown, at: string): void {
  if (typeof v !== 'boolean') fail(at, 'true or false', v);
}

/** A number, or null (JSON writes ±∞ of an idle or empty partition clock as null). */
function numOrNull(v: unknown, at: string): void {
  if (v !== null && typeof v !== 'number') fail(at, 'a number or null', v);
}

function present(o: Obj, key: string, at: string): unknown {
  if (!(key in o)) fail(`${at}${key}`, 'a value', undefined);
  return o[key];
}

const KNOWN = new Set(['version', 'pipeline', 'fingerprint', 'state', 'seq', 'finished', 'sources', 'operators', 'sinks', 'deadLetters', 'late', 'member', 'tasks', 'checksum']);

/** Checks every field of a parsed checkpoint document; throws ShapeError naming the first field at fault. */
export function checkShape(doc: unknown): void {
  const d = obj(doc, 'the document');
  if (d.version !== 1 && d.version !== 2 && d.version !== 3) fail('version', '1, 2 or 3 (the checkpoint formats this pipec reads)', d.version);
  for (const k of Object.keys(d)) if (!KNOWN.has(k)) throw new ShapeError(`unknown field '${k}'`);
  str(d.pipeline, 'pipeline');
  str(d.fingerprint, 'fingerprint');
  // Format 3: the state fingerprint of every part by uid (state-compat.ts), and an entry for each.
  if (d.version === 3) {
    const st = obj(d.state, 'state');
    for (const k of ['sources', 'operators', 'sinks']) for (const [uid, fp] of Object.entries(obj(st[k], `state.${k}`))) str(fp, `state.${k}.${uid}`);
  } else if (d.state !== undefined) throw new ShapeError(`state is a field of checkpoint format 3, not of format ${String(d.version)}`);
  count(d.seq, 'seq');
  bool(d.finished, 'finished');
  for (const [id, s] of Object.entries(obj(d.sources, 'sources'))) {
    const at = `sources.${id}`;
    const o = obj(s, at);
    present(o, 'position', at + '.');
    present(o, 'clock', at + '.');
    count(o.records, `${at}.records`);
    count(o.dead, `${at}.dead`);
  }
  obj(d.operators, 'operators');
  obj(d.sinks, 'sinks');
  if (d.deadLetters !== null) {
    const o = obj(d.deadLetters, 'deadLetters');
    count(o.bytes, 'deadLetters.bytes');
    if (o.tail !== undefined) str(o.tail, 'deadLetters.tail');
  }
  for (const [id, n] of Object.entries(obj(d.late, 'late'))) count(n, `late.${id}`);
  if (d.member !== undefined) str(d.member, 'member');
  if (d.tasks !== undefined) {
    for (const [pid, e] of Object.entries(obj(d.tasks, 'tasks'))) {
      const at = `tasks.${pid}`;
      const o = obj(e, at);
      count(o.epoch, `${at}.epoch`);
      bool(o.released, `${at}.released`);
      if (o.next !== null) count(o.next, `${at}.next`);
      numOrNull(o.maxTs, `${at}.maxTs`);
      bool(o.done, `${at}.done`);
      numOrNull(o.wm, `${at}.wm`);
      obj(o.operators, `${at}.operators`);
    }
  }
}

/** What the plan being run expects to find in its checkpoint: the ids of its parts. */
export interface PlanParts {
  pipeline: string;
  fingerprint: string;
  /** The build's state fingerprints by uid (the generated module's `state`). */
  state: StateFingerprints;
  sources: string[];
  sinks: string[];
  /** Operator ids whose state the document holds at top level (none when scaled out: tasks hold it). */
  operators: string[];
  /** Scaled out: this member's id (its checkpoint must say so and hold `tasks`). */
  member: string | null;
}

/**
 * Checks a well-shaped document against the plan: the same pipeline, every part's state
 * fingerprint unchanged (state-compat.ts), and an entry for every source, sink and stateful
 * operator the document fingerprints. A missing entry would silently restart that part from
 * nothing while the others resume. A document of format 1 or 2 has no per-part fingerprints:
 * it resumes only in the build that wrote it (the same plan fingerprint).
 */
export function checkAgainstPlan(d: Obj, p: PlanParts): void {
  if (d.pipeline !== p.pipeline) throw new ShapeError(`it belongs to pipeline '${String(d.pipeline)}', not '${p.pipeline}'`);
  const entries = (what: string, got: Obj, want: string[], extraToo: boolean): void => {
    const missing = want.filter((k) => !(k in got));
    if (missing.length) throw new ShapeError(`${what} has no entry for ${missing.map((k) => `'${k}'`).join(', ')}`);
    const extra = Object.keys(got).filter((k) => !want.includes(k));
    if (extraToo && extra.length) throw new ShapeError(`${what} has an entry for ${extra.map((k) => `'${k}'`).join(', ')}, which this pipeline does not have`);
  };
  if (d.version === 3) {
    const saved = d.state as StateFingerprints;
    // The document's own entries first: a fingerprinted part without its state is a damaged file.
    entries('sources', d.sources as Obj, Object.keys(saved.sources), false);
    entries('sinks', d.sinks as Obj, Object.keys(saved.sinks), false);
    if (p.member === null) entries('operators', d.operators as Obj, Object.keys(saved.operators), false);
    const v = compareState(saved, p.state);
    if (!v.resumes) throw new StateChangedError(v, `${refusalText(v)} since it was taken`);
    // What this build has and the document does not: only new sinks, which start empty.
    entries('sources', d.sources as Obj, p.sources, false);
    if (p.member === null) entries('operators', d.operators as Obj, p.operators, false);
  } else {
    if (d.fingerprint !== p.fingerprint)
      throw new ShapeError(
        `it was taken by a different version of pipeline '${p.pipeline}' and is of checkpoint format ${String(d.version)}, ` +
          `which records no per-operator state fingerprints, so this pipec cannot tell which state still fits (plan fingerprint ${String(d.fingerprint)}, this build ${p.fingerprint}). ` +
          `Finish the run with the build that took it (its next checkpoint is of format 3), or start over`,
      );
    entries('sources', d.sources as Obj, p.sources, true);
    entries('sinks', d.sinks as Obj, p.sinks, true);
    entries('operators', d.operators as Obj, p.operators, true);
  }
  if (p.member !== null) {
    if (d.member !== p.member) throw new ShapeError(`it was written by member '${String(d.member)}', not '${p.member}'`);
    if (d.tasks === undefined) throw new ShapeError('tasks is missing (a scaled-out member records its partition tasks)');
  } else if (d.tasks !== undefined || d.member !== undefined) {
    throw new ShapeError('it was written by a member of a scaled-out run (it has member/tasks), but this pipeline does not scale out');
  }
}

/** A checkpoint whose state fingerprints do not fit the build: names the parts that changed. */
export class StateChangedError extends ShapeError {
  constructor(
    readonly verdict: StateVerdict,
    message: string,
  ) {
    super(message);
  }
}
