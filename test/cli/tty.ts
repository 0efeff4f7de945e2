// Runs a command on a real pseudo-terminal (a private tmux server) and reads the screen as a
// user sees it: what the terminal made of the bytes, carriage returns and `\x1b[K` included.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

let seq = 0;

export const hasTmux = (): boolean => spawnSync('tmux', ['-V'], { stdio: 'ignore' }).status === 0;

export class TmuxPane {
  private readonly socket = `pipec-test-${process.pid}-${seq++}`;
  private readonly exitFile: string;

  /** Starts `argv` in `cwd` on a `width`×`height` terminal; its exit code lands in `exitFile`. */
  constructor(argv: string[], cwd: string, width = 200, height = 60) {
    this.exitFile = path.join(cwd, `.exit-${this.socket}`);
    const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
    // The pane stays open after the command so the last screen can still be read.
    const script = `cd ${q(cwd)} && ${argv.map(q).join(' ')}; echo $? > ${q(this.exitFile)}; sleep 600`;
    this.tmux(['-f', '/dev/null', 'new-session', '-d', '-x', String(width), '-y', String(height), '-s', 'main', script]);
    // Keep scrolled-off lines readable.
    this.tmux(['set-option', '-t', 'main', 'history-limit', '10000']);
  }

  private tmux(args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8' });
  }

  /** The screen and its scrollback, wrapped lines joined, trailing blanks dropped. */
  screen(): string[] {
    const text = this.tmux(['capture-pane', '-p', '-J', '-t', 'main', '-S', '-', '-E', '-']);
    const lines = text.split('\n').map((l) => l.trimEnd());
    while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    return lines;
  }

  keys(...k: string[]): void {
    this.tmux(['send-keys', '-t', 'main', ...k]);
  }

  /** The command's exit code, once it ended. */
  exitCode(): number | null {
    if (!existsSync(this.exitFile)) return null;
    const t = readFileSync(this.exitFile, 'utf8').trim();
    return t === '' ? null : Number(t);
  }

  /** Polls `pred` over the screen every 100 ms; returns the screen that satisfied it. */
  async waitFor(pred: (lines: string[]) => boolean, timeoutMs: number, what: string): Promise<string[]> {
    const t0 = Date.now();
    for (;;) {
      const s = this.screen();
      if (pred(s)) return s;
      if (Date.now() - t0 > timeoutMs) throw new Error(`${what}: not seen within ${timeoutMs} ms; screen:\n${s.join('\n')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async waitExit(timeoutMs: number): Promise<number> {
    const t0 = Date.now();
    for (;;) {
      const c = this.exitCode();
      if (c !== null) return c;
      if (Date.now() - t0 > timeoutMs) throw new Error(`no exit within ${timeoutMs} ms; screen:\n${this.screen().join('\n')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Ends this test's own tmux server (and the pane's command with it). */
  close(): void {
    spawnSync('tmux', ['-L', this.socket, 'kill-server'], { stdio: 'ignore' });
  }
}
