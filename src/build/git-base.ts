// Spec texts as they are at a git revision (`pipec diff --base <ref>`): read with `git ls-tree`
// and `git show <ref>:<path>`, never by checking the revision out, so the working tree (and
// whatever the user has uncommitted in it) is left alone.
import { execFileSync } from 'node:child_process';
import { isSpecFile } from './discover.ts';

/** A user-facing reason the revision cannot be read (not a repository, unknown ref). */
export class GitBaseError extends Error {}

function git(cwd: string, args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 256 * 1024 * 1024 });
}

/**
 * The spec files under `paths` (relative to cwd, forward slashes) at `ref`, with their texts,
 * keyed by path relative to cwd — the same keys `discoverSpecs` gives the working tree.
 */
export function specsAtRef(cwd: string, ref: string, paths: string[]): Map<string, string> {
  try {
    if (git(cwd, ['rev-parse', '--is-inside-work-tree']).trim() !== 'true') throw new Error();
  } catch {
    throw new GitBaseError(`${cwd} is not inside a git repository, so there is no revision to compare with (--base needs one)`);
  }
  if (ref.startsWith('-')) throw new GitBaseError(`'${ref}' is not a git revision`);
  try {
    git(cwd, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
  } catch {
    throw new GitBaseError(`'${ref}' is not a commit of this repository (try a branch, a tag or a hash: \`git log --oneline\`)`);
  }
  // Paths given to ls-tree are relative to cwd, and so are the names it prints.
  const listed = git(cwd, ['ls-tree', '-r', '--name-only', '-z', ref, '--', ...(paths.length ? paths : ['.'])])
    .split('\0')
    .filter((p) => p !== '' && isSpecFile(p))
    .sort();
  const out = new Map<string, string>();
  for (const p of listed) out.set(p, git(cwd, ['show', `${ref}:./${p}`]));
  return out;
}
