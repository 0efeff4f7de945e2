// Runs the built CLI (bin/pipec.mjs → dist/cli/pipec-<hash>.cjs) as a user would, capturing output.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

export const repoRoot = join(import.meta.dirname, '..', '..');
export const PIPEC = join(repoRoot, 'bin', 'pipec.mjs');

export interface CliRun {
  status: number;
  stdout: string;
  stderr: string;
}

export function pipec(args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}): CliRun {
  const r = spawnSync(process.execPath, [PIPEC, ...args], {
    cwd: opts.cwd ?? repoRoot,
    env: { ...process.env, NO_COLOR: '1', ...opts.env },
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}
