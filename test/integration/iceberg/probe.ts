// Runs iceberg_probe.py (pyiceberg) with the project venv for the writer tests.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ensureVenv, venvPython } from '../../support/venv.ts';

export async function probe<T>(request: Record<string, unknown>): Promise<T> {
  await ensureVenv();
  const r = spawnSync(venvPython, [join(import.meta.dirname, 'iceberg_probe.py')], { input: JSON.stringify(request), encoding: 'utf8', maxBuffer: 256 << 20 });
  let out: { ok: boolean; message?: string; trace?: string };
  try {
    out = JSON.parse(r.stdout);
  } catch {
    throw new Error(`iceberg_probe.py failed (exit ${r.status}):\n${r.stderr.slice(-3000)}`);
  }
  if (!out.ok) throw new Error(`pyiceberg: ${out.message}\n${out.trace}`);
  return out as T;
}
