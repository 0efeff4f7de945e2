// Local file IO for table files. Locations are `file://` + the path as stored, or absolute
// paths; writes go through a temp file and rename so a reader never sees half a file, and
// `createExclusive` fails if the target exists (atomic commits).
//
// A location is never percent-decoded or -encoded: Iceberg Java (Hadoop's Path), pyiceberg and
// DuckDB all open `file:` locations by their literal path, so `/wh/my dir/city=Z%C3%BCrich`
// is a folder named with a space and a `%` sequence (the partition folder name is URL-encoded
// once, by `partitionToPath`, as Java does). Tables written before this rule (pipec ≤ 0.1.0
// percent-encoded the path in the URL) with such characters in a path do not read back.
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync, existsSync, readdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { randomUUID } from 'node:crypto';

/** The local path a location names: `file:/p`, `file:///p` and `file://localhost/p` are `/p`. */
export function toPath(location: string): string {
  if (!location.startsWith('file:')) return location;
  const rest = location.slice('file:'.length);
  if (!rest.startsWith('//')) return rest;
  const slash = rest.indexOf('/', 2);
  return slash < 0 ? '/' : rest.slice(slash);
}

/** The location of an absolute local path, in the form other engines write (`file:///p`). */
export function toLocation(path: string): string {
  return `file://${path}`;
}

function writeDurably(path: string, bytes: Uint8Array | string): void {
  mkdirSync(dirname(path), { recursive: true });
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, typeof bytes === 'string' ? Buffer.from(bytes) : bytes);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export function writeFileAtomic(location: string, bytes: Uint8Array | string): void {
  const path = toPath(location);
  const tmp = `${path}.${randomUUID()}.tmp`;
  writeDurably(tmp, bytes);
  renameSync(tmp, path);
}

/** Writes `bytes` at `location` only if nothing is there yet; false when it already exists. */
export function createExclusive(location: string, bytes: Uint8Array | string): boolean {
  const path = toPath(location);
  const tmp = `${path}.${randomUUID()}.tmp`;
  writeDurably(tmp, bytes);
  try {
    linkSync(tmp, path);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  } finally {
    rmSync(tmp, { force: true });
  }
}

export const readBytes = (location: string): Buffer => readFileSync(toPath(location));
export const exists = (location: string): boolean => existsSync(toPath(location));
export const remove = (location: string): void => rmSync(toPath(location), { force: true });

/** Every file under a location, with its modification time (for orphan-file removal). */
export function listFiles(location: string): { location: string; mtimeMs: number }[] {
  const root = toPath(location);
  const out: { location: string; mtimeMs: number }[] = [];
  const walk = (d: string): void => {
    if (!existsSync(d)) return;
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const full = `${d}/${e.name}`;
      if (e.isDirectory()) walk(full);
      else out.push({ location: toLocation(full), mtimeMs: statSync(full).mtimeMs });
    }
  };
  walk(root);
  return out.sort((a, b) => a.location.localeCompare(b.location));
}
