// Finds the spec files a command works on: files given directly, and every `.pipe.sql` /
// `.pipe.yaml` under directories given, in a stable (sorted) order so builds are deterministic.
// Paths may be relative to the working directory or absolute.
import { readdirSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';

export const SPEC_SUFFIXES = ['.pipe.sql', '.pipe.yaml', '.pipe.yml'];

export function isSpecFile(path: string): boolean {
  return SPEC_SUFFIXES.some((s) => path.endsWith(s));
}

export interface DiscoveredSpecs {
  files: string[];
  missing: string[];
  /** Files given explicitly that are not specs (wrong ending): named, never parsed. */
  notSpecs: string[];
}

/** Paths come back relative to `cwd` with forward slashes (they appear in generated headers). */
export function discoverSpecs(paths: string[], cwd: string): DiscoveredSpecs {
  const files: string[] = [];
  const missing: string[] = [];
  const notSpecs: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      if (name === 'node_modules' || name.startsWith('.')) continue;
      const full = join(dir, name);
      const st = statSync(full);
      if (st.isDirectory()) walk(full);
      else if (isSpecFile(name)) files.push(full);
    }
  };
  for (const p of paths) {
    const full = resolve(cwd, p);
    let st;
    try {
      st = statSync(full);
    } catch {
      missing.push(p);
      continue;
    }
    if (st.isDirectory()) walk(full);
    else if (isSpecFile(full)) files.push(full);
    else notSpecs.push(p);
  }
  const rel = [...new Set(files.map((f) => toPosix(relative(cwd, f))))];
  return { files: rel.sort(), missing, notSpecs };
}

/**
 * One spec path as every command names it: relative to `cwd`, forward slashes, whether given
 * relative or absolute — so diagnostics and generated headers are the same either way.
 */
export function specPath(p: string, cwd: string): string {
  return toPosix(relative(cwd, resolve(cwd, p))) || p;
}

export function toPosix(p: string): string {
  return sep === '/' ? p : p.split(sep).join('/');
}
