// Locates the test-services Python venv (building it once per process via test/services/venv.sh) and runs
// the helper scripts in test/support/python/ with it, returning their JSON output.
import { execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The Python of a named venv: `main` (requirements.txt) or `<name>` (requirements-<name>.txt). */
export function venvPythonOf(name = 'main'): string {
  return path.join(repoRoot, 'test', 'services', '.cache', name === 'main' ? 'venv' : `venv-${name}`, 'bin', 'python');
}
export const venvPython = venvPythonOf('main');
const helperDir = path.join(repoRoot, 'test', 'support', 'python');

const ready = new Map<string, Promise<void>>();

/** Runs venv.sh once per process and venv: a no-op when the venv matches its requirements file, an install otherwise. */
export function ensureVenv(name = 'main'): Promise<void> {
  const known = ready.get(name);
  if (known) return known;
  const building = new Promise<void>((resolve, reject) => {
    execFile('bash', [path.join(repoRoot, 'test', 'services', 'venv.sh'), name], { maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      if (err) {
        ready.delete(name);
        reject(new Error(`test/services/venv.sh failed:\n${stdout}${stderr}`));
      } else {
        resolve();
      }
    });
  });
  ready.set(name, building);
  return building;
}

/** Runs test/support/python/<script> with the venv's Python, feeding `input` on stdin, and parses stdout as JSON. */
export async function runPythonHelper(script: string, args: readonly string[], input: string): Promise<unknown> {
  await ensureVenv();
  const { stdout, stderr, code } = await new Promise<{ stdout: string; stderr: string; code: number | null }>((resolve, reject) => {
    const child = spawn(venvPython, [path.join(helperDir, script), ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.on('close', (exit) => resolve({ stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), code: exit }));
    child.stdin.end(input);
  });
  try {
    return JSON.parse(stdout);
  } catch {
    throw new Error(`${script} exited with ${String(code)} without JSON output:\n${stderr.slice(-4000)}${stdout.slice(0, 2000)}`);
  }
}
