// The resume rule: may a build of a pipeline continue from a checkpoint another build took?
// Both sides are state fingerprints by uid (computed by the compiler, src/plan/state-fingerprints.ts,
// written into the generated module and into every checkpoint). The runner refuses a checkpoint
// this check rejects, and `pipec diff` classifies state changes with this same function, so the
// two agree by construction (docs/language-decisions.md, "Resuming after a change").
//
// The rule: every source and stateful operator of the build must find its uid in the checkpoint
// with the same fingerprint; a sink must too, unless it is new (it starts with no progress and
// receives rows from the checkpoint on). Parts the checkpoint has and the build does not are
// dropped (a removed view's state, a removed sink's progress).

export interface StateFingerprints {
  sources: Record<string, string>;
  operators: Record<string, string>;
  sinks: Record<string, string>;
}

export type PartKind = 'source' | 'operator' | 'sink';

export interface StatePart {
  kind: PartKind;
  uid: string;
}

export interface StateVerdict {
  /** True: the build resumes from the checkpoint. */
  resumes: boolean;
  /** Parts whose state layout changed (refuse). */
  changed: StatePart[];
  /** Sources and operators with no state in the checkpoint (refuse: they would start from nothing while the rest resumes). */
  added: StatePart[];
  /** Sinks with no progress in the checkpoint: they start empty (resume). */
  newSinks: string[];
  /** Parts of the checkpoint the build no longer has: their state is dropped (resume). */
  dropped: StatePart[];
}

const KINDS: [PartKind, keyof StateFingerprints][] = [
  ['source', 'sources'],
  ['operator', 'operators'],
  ['sink', 'sinks'],
];

/** Compares the checkpoint's fingerprints (`saved`) with the build's. */
export function compareState(saved: StateFingerprints, build: StateFingerprints): StateVerdict {
  const v: StateVerdict = { resumes: true, changed: [], added: [], newSinks: [], dropped: [] };
  for (const [kind, key] of KINDS) {
    const was = saved[key];
    const now = build[key];
    for (const uid of Object.keys(now).sort()) {
      if (!Object.hasOwn(was, uid)) {
        if (kind === 'sink') v.newSinks.push(uid);
        else v.added.push({ kind, uid });
      } else if (was[uid] !== now[uid]) v.changed.push({ kind, uid });
    }
    for (const uid of Object.keys(was).sort()) if (!Object.hasOwn(now, uid)) v.dropped.push({ kind, uid });
  }
  v.resumes = v.changed.length === 0 && v.added.length === 0;
  return v;
}

const partText = (p: StatePart): string => `${p.kind} '${p.uid}'`;

/** Why a verdict refuses, naming the parts (empty when it resumes). */
export function refusalText(v: StateVerdict): string {
  const parts: string[] = [];
  if (v.changed.length) parts.push(`the state layout of ${v.changed.map(partText).join(', ')} changed`);
  if (v.added.length) parts.push(`${v.added.map(partText).join(', ')} ${v.added.length === 1 ? 'is' : 'are'} new and would start from nothing while the rest resumes`);
  return parts.join('; ');
}
