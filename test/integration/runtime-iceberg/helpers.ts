// Helpers of the runtime Iceberg sink tests: write a spec, compile and run it in-process or in
// a child process (which may be killed), and read the table back with pyiceberg.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { compileFile } from '../../../src/build/compile.ts';
import { runPipeline } from '../../../targets/runtime/index.ts';
import { FilesystemCatalog } from '../../../targets/runtime/lib/iceberg/writer/catalogs/filesystem-catalog.ts';
import { identFromName } from '../../../targets/runtime/lib/iceberg/writer/catalogs/catalog.ts';
import { readIcebergTable, type IcebergTableDump } from '../../support/pyiceberg.ts';

export interface RunOutcome {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

/** Compiles `<dir>/spec.pipe.sql` (with `env` for `${VAR}`s) and runs it in this process. */
export async function runSpec(dir: string, sql: string, env: Record<string, string>, checkpointDir?: string): Promise<RunOutcome> {
  const file = path.join(dir, 'spec.pipe.sql');
  writeFileSync(file, sql);
  const r = await compileFile(file, { cwd: dir, env: { get: (n) => env[n] } });
  const errors = r.diagnostics.sorted().filter((d) => d.severity === 'error');
  if (!r.plan || errors.length) throw new Error(`spec does not compile: ${errors.map((d) => d.message).join('; ')}`);
  let stderr = '';
  const { exitCode } = await runPipeline(r.plan, { baseDir: dir, env, checkpointDir, handleSignals: false, stdout: () => undefined, stderr: (t) => (stderr += t) });
  return { exitCode, signal: null, stderr };
}

/** The same in a child process (`child-run.ts`): the crash tests kill it. */
export function runSpecChild(dir: string, sql: string, env: Record<string, string>, checkpointDir: string): Promise<RunOutcome> {
  const file = path.join(dir, 'spec.pipe.sql');
  writeFileSync(file, sql);
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'child-run.ts'), file, dir, checkpointDir], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.on('exit', (exitCode, signal) => resolve({ exitCode, signal, stderr })));
}

/** Reads a filesystem-catalog table (its newest metadata file) with pyiceberg; null when it does not exist. */
export async function readFsTable(warehouse: string, table: string): Promise<IcebergTableDump | null> {
  const t = await new FilesystemCatalog('lake', warehouse).load(identFromName(table));
  return t ? readIcebergTable({ metadata: t.metadataLocation }) : null;
}

/** pyiceberg's timestamp text (`2024-01-01T00:00:01` / `...T00:00:01.500000`) → epoch ms. */
export function isoMs(text: unknown): number {
  return Date.parse(String(text) + 'Z');
}

/** Snapshots written by the pipeline's sink, oldest first. */
export function sinkSnapshots(dump: IcebergTableDump, pipeline: string, sink: string): Record<string, string>[] {
  return dump.snapshots.map((s) => s.summary ?? {}).filter((s) => s['pipec.pipeline'] === pipeline && s['pipec.sink'] === sink);
}
