// A long-lived chdb session (test/support/python/chdb-live.py) for tests that need ClickHouse's background
// work, above all Kafka engine consumers: statements run one at a time in the same session, which stays open
// (and keeps consuming) until close(). chdb.ts, by contrast, opens a fresh session per script.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { ensureVenv, repoRoot, venvPython } from './venv.ts';

type Response = { id: number; ok: true; rows: Record<string, unknown>[] } | { id: number; ok: false; message: string };

export class ChdbLiveSession {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly pending = new Map<number, (r: Response) => void>();
  private nextId = 1;
  private stderrTail = '';
  private exited: Error | null = null;

  private constructor(dataDir: string) {
    this.child = spawn(venvPython, [path.join(repoRoot, 'test', 'support', 'python', 'chdb-live.py'), dataDir], { stdio: ['pipe', 'pipe', 'pipe'] });
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      const res = JSON.parse(line) as Response;
      this.pending.get(res.id)?.(res);
      this.pending.delete(res.id);
    });
    this.child.stderr.on('data', (b: Buffer) => {
      this.stderrTail = (this.stderrTail + b.toString('utf8')).slice(-4000);
    });
    this.child.on('exit', (code, signal) => {
      this.exited = new Error(`chdb live session exited (${String(code ?? signal)}):\n${this.stderrTail}`);
      for (const p of this.pending.values()) p({ id: 0, ok: false, message: this.exited.message });
      this.pending.clear();
    });
  }

  /** Opens a session whose data lives in `dataDir` (created if missing). */
  static async open(dataDir: string): Promise<ChdbLiveSession> {
    await ensureVenv();
    return new ChdbLiveSession(dataDir);
  }

  /** Runs one statement; resolves with its rows or with the engine's error message (never rejects for SQL errors). */
  exec(sql: string): Promise<Response> {
    if (this.exited) return Promise.resolve({ id: 0, ok: false, message: this.exited.message });
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.child.stdin.write(`${JSON.stringify({ id, sql })}\n`);
    });
  }

  /** Runs one statement and returns its rows; throws with the statement and the engine's message on error. */
  async query(sql: string): Promise<Record<string, unknown>[]> {
    const r = await this.exec(sql);
    if (!r.ok) throw new Error(`chdb: ${r.message}\nin: ${sql.slice(0, 300)}`);
    return r.rows;
  }

  /** Ends the session (stops its consumers); waits for the process to exit, killing it after `graceMs`. */
  async close(graceMs = 20_000): Promise<void> {
    if (this.exited) return;
    const done = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await done;
    clearTimeout(timer);
  }
}
