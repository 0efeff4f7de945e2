// Writes (or, for `build --check`, compares) a build's outputs under `--out`, and nothing else.
// Promises (docs/security.md "Paths and output directories"):
// - every path written, read back or removed resolves inside `--out` — also through symlinks
//   already there; anything else is refused with an OutputPathError, before any file is touched;
// - only files a previous build wrote are removed: each pipeline folder holds a manifest
//   (`<out>/<pipeline>/.pipec-manifest.json`) listing the files the build wrote there, and stale
//   files are those listed in the old manifest and not written again. Nothing is removed
//   recursively; folders are removed only when emptied by that cleaning.
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

export const MANIFEST_NAME = '.pipec-manifest.json';

export class OutputPathError extends Error {}

/** What writeOutputs and compareOutputs need of a build. */
export interface BuildOutputs {
  /** `<pipeline>/<path>` → contents. */
  outputs: Map<string, string | Uint8Array>;
  /** Pipelines built (their manifests are written). */
  pipelines: string[];
}

/**
 * Every built pipeline's manifest (the files, relative to its folder, the build writes there) by
 * its path, grouping the outputs once rather than scanning them once per pipeline.
 */
function manifestsOf(pipelines: string[], outputs: Map<string, string | Uint8Array>): Map<string, string> {
  const files = new Map<string, string[]>(pipelines.map((p) => [p, []]));
  for (const k of outputs.keys()) {
    // Pipeline names hold no '/' (checked names), so the first segment is the folder.
    const slash = k.indexOf('/');
    files.get(k.slice(0, slash))?.push(k.slice(slash + 1));
  }
  const out = new Map<string, string>();
  for (const [p, list] of files) out.set(`${p}/${MANIFEST_NAME}`, `${JSON.stringify({ written_by: 'pipec build', files: list.sort() }, null, 2)}\n`);
  return out;
}

/** A relative output path is forward-slashed segments, none empty, `.`, `..`, or holding `\` or NUL. */
function checkRelative(rel: string): void {
  const bad = rel === '' || rel.startsWith('/') || isAbsolute(rel) || rel.split('/').some((seg) => seg === '' || seg === '.' || seg === '..' || seg.includes('\\') || seg.includes('\0'));
  if (bad) throw new OutputPathError(`refusing to use output path ${JSON.stringify(rel)}: it is not a plain relative path inside the output folder`);
}

/** True when `p` is `root` or inside it (both absolute, resolved). */
export function inside(root: string, p: string): boolean {
  // POSIX paths resolved by path.resolve/join hold no `.`/`..` segments: a prefix test decides
  // (path.relative, a few µs, ran twice for each of a build's thousands of files).
  if (sep === '/') return p === root || p.startsWith(root.endsWith('/') ? root : `${root}/`);
  const r = relative(root, p);
  return r === '' || (!r.startsWith(`..${sep}`) && r !== '..' && !isAbsolute(r));
}

/** The real path of `p`'s deepest existing ancestor (or itself), so symlinks are seen through. */
function realAncestor(p: string): string {
  let cur = p;
  for (;;) {
    try {
      return join(realpathSync(cur), relative(cur, p));
    } catch {
      const up = dirname(cur);
      if (up === cur) return p;
      cur = up;
    }
  }
}

/** A guard over one output root: every path it hands out is inside the root. */
export class OutputRoot {
  readonly root: string;
  private readonly realRoot: string;

  /**
   * Real paths of folders already resolved by this guard. A build checks thousands of paths in
   * a few folders; a folder's real path is looked up once (folders this build creates are plain
   * folders, and `path` is asked again after they are made).
   */
  private readonly realDirs = new Map<string, string>();

  /**
   * `unchanging`: nothing is created under the root while this guard is used (a check of every
   * path before any write), so missing folders are remembered too: a 1,000-spec build's 9,000
   * paths then cost one existsSync per folder, not two or three per file (~120 ms of the
   * build's serial tail).
   */
  constructor(cwd: string, outDir: string, private readonly unchanging = false) {
    this.root = resolve(cwd, outDir);
    this.realRoot = realAncestor(this.root);
  }

  private realDir(dir: string): string {
    const known = this.realDirs.get(dir);
    if (known !== undefined) return known;
    // Only folders that exist are remembered (unless the guard is `unchanging`): a missing one
    // may yet be created as a link. A missing folder is its parent's real path plus its name, so
    // the walk up stops at the first folder already seen (a build's new pipeline folders cost an
    // existsSync each, not a failing realpath per ancestor per file).
    if (!existsSync(dir)) {
      const up = dirname(dir);
      const r = up === dir ? dir : join(this.realDir(up), basename(dir));
      if (this.unchanging) this.realDirs.set(dir, r);
      return r;
    }
    const r = realAncestor(dir);
    this.realDirs.set(dir, r);
    return r;
  }

  /** The absolute path of `rel` (forward slashes, relative to the root); throws when it leaves the root. */
  path(rel: string): string {
    checkRelative(rel);
    const full = resolve(this.root, ...rel.split('/'));
    // The folders on the way are seen through (a linked folder must lead nowhere outside); the
    // last segment is not: a link there is replaced on write and never followed on read or removal.
    if (!inside(this.root, full) || !inside(this.realRoot, join(this.realDir(dirname(full)), basename(full)))) {
      throw new OutputPathError(`refusing to use ${JSON.stringify(rel)}: it resolves outside the output folder ${this.root}`);
    }
    return full;
  }

  /** Contents of `rel` when it exists as a file inside the root; null otherwise (never throws). */
  read(rel: string): Buffer | null {
    try {
      const full = this.path(rel);
      return lstatSync(full).isFile() ? readFileSync(full) : null; // lstat: a link is not read
    } catch {
      return null;
    }
  }

  /** Files under folder `rel` (relative to the root), not following symlinks. */
  list(rel: string): string[] {
    let dir: string;
    try {
      dir = this.path(rel);
    } catch {
      return [];
    }
    if (!existsSync(dir) || !lstatSync(dir).isDirectory()) return [];
    const out: string[] = [];
    for (const name of readdirSync(dir).sort()) {
      const child = `${rel}/${name}`;
      if (lstatSync(join(dir, name)).isDirectory()) out.push(...this.list(child));
      else out.push(child);
    }
    return out;
  }
}

/** The files the previous build of `pipeline` wrote, from its manifest; null when there is none usable. */
export function readManifest(root: OutputRoot, pipeline: string): { files: string[] } | { problem: string } | null {
  const raw = root.read(`${pipeline}/${MANIFEST_NAME}`);
  if (raw === null) return null;
  let doc: unknown;
  try {
    doc = JSON.parse(raw.toString('utf8'));
  } catch {
    return { problem: 'it is not valid JSON' };
  }
  const files = (doc as { files?: unknown } | null)?.files;
  if (!Array.isArray(files) || !files.every((f) => typeof f === 'string')) return { problem: 'it has no list of files' };
  return { files: files as string[] };
}

export interface WriteReport {
  /** Stale files removed (listed in the previous manifest, not written again). */
  removed: string[];
  /** Things the user should know: files left in place, unusable manifests. */
  notes: string[];
}

/**
 * Writes every output and each built pipeline's manifest, after removing the stale files the
 * previous manifests list. All paths are checked before anything is written or removed. The
 * calls are synchronous: a large build splits its pipelines across threads instead
 * (write-build.ts), each writing its share one file after another.
 */
export function writeOutputs(cwd: string, outDir: string, build: BuildOutputs): WriteReport {
  const root = new OutputRoot(cwd, outDir);
  const writes = new Map<string, string | Uint8Array>(build.outputs);
  for (const [rel, text] of manifestsOf(build.pipelines, build.outputs)) writes.set(rel, text);
  const targets = [...writes.keys()].sort().map((rel) => [rel, root.path(rel)] as const);

  const report: WriteReport = { removed: [], notes: [] };
  for (const name of build.pipelines) {
    const previous = readManifest(root, name);
    if (previous && 'problem' in previous) {
      report.notes.push(`${outDir}/${name}/${MANIFEST_NAME} is not a pipec manifest (${previous.problem}); no stale file was removed there`);
      continue;
    }
    for (const f of previous?.files ?? []) {
      const rel = `${name}/${f}`;
      if (writes.has(rel)) continue;
      let full: string;
      try {
        full = root.path(rel);
      } catch {
        report.notes.push(`${outDir}/${name}/${MANIFEST_NAME} lists ${JSON.stringify(f)}, which is not inside ${outDir}/${name}/; left alone`);
        continue;
      }
      if (!existsSync(full) || lstatSync(full).isDirectory()) continue;
      unlinkSync(full);
      report.removed.push(rel);
      removeEmptyParents(dirname(full), root.path(name));
    }
  }
  // Folders this call made or found: one mkdir per folder, not one per file written into it.
  // `fresh`: the folders this call created itself (plain folders, empty when made).
  const made = new Set<string>();
  const fresh = new Set<string>();
  const writeOne = (rel: string, full: string): void => {
    const dir = dirname(full);
    if (!made.has(dir)) {
      made.add(dir);
      const first = mkdirSync(dir, { recursive: true });
      if (first !== undefined) for (let d = dir; ; d = dirname(d)) {
        fresh.add(d);
        if (d === first || dirname(d) === d) break;
      }
    }
    // Again: a folder that was there already (or appeared since the paths were checked) must not
    // have turned out to be a link outside. A folder this call created is a plain folder.
    if (!fresh.has(dir)) root.path(rel);
    const contents = writes.get(rel)!;
    // One lstat decides: nothing there (write), a folder in the way (refuse), a symlink left in the
    // tree (replaced, never written through), a file with the same bytes (left alone: same mtime).
    const st = fresh.has(dir) ? undefined : lstatSync(full, { throwIfNoEntry: false });
    if (st?.isDirectory()) throw new OutputPathError(`cannot write ${outDir}/${rel}: a folder is in the way`);
    if (st?.isSymbolicLink()) unlinkSync(full);
    else if (st?.isFile() && sameBytes(full, st.size, contents)) return;
    writeFileSync(full, contents);
  };
  for (const [rel, full] of targets) writeOne(rel, full);
  for (const name of build.pipelines) {
    // A pipeline folder this call created holds only what it wrote.
    if (fresh.has(root.path(name))) continue;
    const left = root.list(name).filter((rel) => !writes.has(rel));
    if (left.length) {
      const shown = left.slice(0, 5).map((r) => `${outDir}/${r}`).join(', ');
      report.notes.push(`${left.length} file${left.length === 1 ? '' : 's'} in ${outDir}/${name}/ not written by this build and left in place (no manifest lists them): ${shown}${left.length > 5 ? ', …' : ''}`);
    }
  }
  return report;
}

/**
 * True when `full` is a regular file (not a link) holding exactly `contents`: a rebuild leaves
 * unchanged files alone (no write, same mtime) instead of rewriting thousands of them.
 */
export function sameFile(full: string, contents: string | Uint8Array): boolean {
  try {
    const st = lstatSync(full, { throwIfNoEntry: false });
    return st !== undefined && st.isFile() && sameBytes(full, st.size, contents);
  } catch {
    return false;
  }
}

/** True when the file `full`, of `size` bytes, holds exactly `contents`. */
export function sameBytes(full: string, size: number, contents: string | Uint8Array): boolean {
  if (size !== byteLength(contents)) return false;
  try {
    return holds(readFileSync(full), contents);
  } catch {
    return false;
  }
}

const byteLength = (c: string | Uint8Array): number => (typeof c === 'string' ? Buffer.byteLength(c) : c.byteLength);
const holds = (bytes: Buffer, c: string | Uint8Array): boolean => bytes.equals(typeof c === 'string' ? Buffer.from(c) : c);

/** Removes `dir` and its parents while they are empty, stopping at `stop` (kept). */
function removeEmptyParents(dir: string, stop: string): void {
  for (let d = dir; d !== stop && inside(stop, d); d = dirname(d)) {
    if (readdirSync(d).length > 0) return;
    rmdirSync(d);
  }
}

export interface StaleReport {
  added: string[];
  changed: string[];
  removed: string[];
}

/** Compares fresh outputs (and manifests) with what is under outDir, for the pipelines built. */
export function compareOutputs(cwd: string, outDir: string, build: BuildOutputs): StaleReport {
  const root = new OutputRoot(cwd, outDir);
  const expected = new Map<string, string | Uint8Array>(build.outputs);
  for (const [rel, text] of manifestsOf(build.pipelines, build.outputs)) expected.set(rel, text);
  const report: StaleReport = { added: [], changed: [], removed: [] };
  for (const [rel, contents] of expected) {
    root.path(rel);
    const have = root.read(rel);
    if (have === null) report.added.push(rel);
    else if (!have.equals(Buffer.from(contents))) report.changed.push(rel);
  }
  for (const name of build.pipelines) for (const rel of root.list(name)) if (!expected.has(rel)) report.removed.push(rel);
  for (const k of Object.values(report)) k.sort();
  return report;
}
