// Writes a build's runnable bundles under the bundle folder (git-ignored, never compared by
// --check), through the same guard as --out: a path outside the folder is refused. Pipelines
// with the same runtime modules share one library bundle (equal contents): it is written once
// and hard-linked into the other folders (copied where links fail), so each folder stays
// self-contained and 1,000 pipelines do not write 1,000 copies of it.
import { linkSync, lstatSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { OutputRoot, sameBytes } from './write-outputs.ts';

/** What writeBundles needs of a build: `<pipeline>/<path>` → contents. */
export interface BuildBundles {
  bundles: Map<string, string | Uint8Array>;
}

interface Identity {
  path: string;
  ino: number;
  dev: number;
}

export function writeBundles(cwd: string, bundleDir: string, build: BuildBundles): void {
  const root = new OutputRoot(cwd, bundleDir);
  // Every path is checked before anything is written.
  const targets = [...build.bundles.keys()].sort().map((rel) => [rel, root.path(rel)] as const);
  // Contents → the first file written with them (and its identity, for links); null when that
  // first write left nothing to link to: later folders then get copies.
  const first = new Map<string | Uint8Array, Identity | null>();
  const made = new Set<string>(); // one mkdir per folder
  for (const [rel, full] of targets) {
    const contents = build.bundles.get(rel)!;
    const dir = dirname(full);
    if (!made.has(dir)) {
      made.add(dir);
      mkdirSync(dir, { recursive: true });
    }
    const earlier = first.get(contents);
    const st = lstatSync(full, { throwIfNoEntry: false });
    if (st !== undefined) {
      // Unchanged since the last build (the same bytes; for a shared library, already the same
      // file as the first folder's): left alone.
      const same = earlier === undefined ? st.isFile() && sameBytes(full, st.size, contents) : earlier !== null && st.isFile() && st.ino === earlier.ino && st.dev === earlier.dev;
      if (same) {
        if (earlier === undefined) first.set(contents, { path: full, ino: st.ino, dev: st.dev });
        continue;
      }
      // A previous build's file is replaced, never written through: it may be a hard link
      // shared with a folder this build does not touch.
      rmSync(full, { force: true });
    }
    if (earlier && linkTo(earlier.path, full)) continue;
    writeFileSync(full, contents);
    if (earlier === undefined) first.set(contents, identity(full));
  }
}

function identity(path: string): Identity | null {
  const st = lstatSync(path, { throwIfNoEntry: false });
  return st ? { path, ino: st.ino, dev: st.dev } : null;
}

function linkTo(existing: string, full: string): boolean {
  try {
    linkSync(existing, full);
    return true;
  } catch {
    return false;
  }
}
