// Runs a SQL script in one chdb (in-process ClickHouse) session for tests; see test/support/CONTEXT.md.
// A long-lived worker (test/support/python/chdb-run.py --serve, in the project venv) splits the script with sqlparse
// and runs it in a fresh chdb session per call, so calls are isolated but skip Python/chdb start-up after the first.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { ensureVenv, repoRoot, venvPython } from './venv.ts';

export interface ChdbStatementResult {
  statement: string;
  rows: Record<string, unknown>[];
}

type Response =
  | { id: number; ok: true; results: ChdbStatementResult[] }
  | { id: number; ok: false; index: number; statement: string; message: string };

interface Pending {
  resolve: (r: Response) => void;
  reject: (e: Error) => void;
}

class ChdbWorker {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private stderrTail = '';
  dead = false;

  constructor() {
    this.child = spawn(venvPython, [path.join(repoRoot, 'test', 'support', 'python', 'chdb-run.py'), '--serve'], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    createInterface({ input: this.child.stdout }).on('line', (line) => this.onLine(line));
    this.child.stderr.on('data', (b: Buffer) => {
      this.stderrTail = (this.stderrTail + b.toString('utf8')).slice(-4000);
    });
    this.child.on('error', (err) => this.fail(err));
    this.child.on('exit', (code, signal) => this.fail(new Error(`chdb worker exited (${String(code ?? signal)}):\n${this.stderrTail}`)));
    this.idle();
  }

  run(script: string): Promise<Response> {
    const id = this.nextId++;
    return new Promise<Response>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.busy();
      this.child.stdin.write(`${JSON.stringify({ id, script })}\n`);
    });
  }

  private onLine(line: string): void {
    let res: Response;
    try {
      res = JSON.parse(line) as Response;
    } catch {
      this.fail(new Error(`chdb worker sent a non-JSON line: ${line.slice(0, 500)}`));
      return;
    }
    const p = this.pending.get(res.id);
    this.pending.delete(res.id);
    if (this.pending.size === 0) this.idle();
    p?.resolve(res);
  }

  private fail(err: Error): void {
    this.dead = true;
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
    if (worker === this) worker = undefined;
  }

  // An idle worker must not keep the test process alive; a busy one must, or the awaited answer never comes.
  private idle(): void {
    this.child.unref();
    (this.child.stdout as unknown as { unref?: () => void }).unref?.();
    (this.child.stderr as unknown as { unref?: () => void }).unref?.();
    (this.child.stdin as unknown as { unref?: () => void }).unref?.();
  }

  private busy(): void {
    this.child.ref();
    (this.child.stdout as unknown as { ref?: () => void }).ref?.();
  }
}

let worker: ChdbWorker | undefined;

/**
 * Splits `sqlScript` into statements (string literals, quoted identifiers and comments are respected), runs them
 * in order in ONE fresh chdb session and returns each statement's rows (empty for DDL/INSERT). Integers beyond
 * Number.MAX_SAFE_INTEGER come back as decimal strings. Rejects with an Error naming the failing statement.
 */
export async function runChdb(sqlScript: string): Promise<ChdbStatementResult[]> {
  await ensureVenv();
  if (!worker || worker.dead) worker = new ChdbWorker();
  const out = await worker.run(sqlScript);
  if (!out.ok) {
    throw new Error(`chdb: statement #${out.index + 1} failed: ${out.statement}\n${out.message}`);
  }
  return out.results;
}
