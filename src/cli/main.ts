// Entry point of the `pipec` CLI: parses argv and dispatches to a command in ./commands/.
// User errors end with diagnostics and exit 1; usage errors exit 2; an unexpected exception is
// reported as an internal error (a bug, with where to report it), never as a bare stack trace.
import { parseArgs } from 'node:util';
import { makeContext, type CliIo, type DiagnosticFormat } from './context.ts';
import { ProfileError } from '../build/profile.ts';
import { USAGE, commandHelp } from './usage.ts';
import pkg from '../../package.json' with { type: 'json' };
// Commands are loaded on demand: `pipec check` never pays for the targets, `pipec explain`
// never pays for the parser (cold start is most of a CI step's time).

const OPTIONS = {
  profile: { type: 'string' },
  format: { type: 'string' },
  target: { type: 'string' },
  out: { type: 'string' },
  bundle: { type: 'string' },
  check: { type: 'boolean' },
  write: { type: 'boolean' },
  diff: { type: 'boolean' },
  to: { type: 'string' },
  'deny-warnings': { type: 'boolean' },
  'no-optimize': { type: 'boolean' },
  physical: { type: 'boolean' },
  'no-color': { type: 'boolean' },
  'checkpoint-dir': { type: 'string' },
  'metrics-port': { type: 'string' },
  'member-id': { type: 'string' },
  workers: { type: 'string' },
  update: { type: 'boolean' },
  reporter: { type: 'string' },
  base: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
  snapshot: { type: 'string' },
  'chdb-python': { type: 'string' },
  'flink-python': { type: 'string' },
} as const;

/** pipec's own version (package.json), as `pipec --version` prints it. */
export const VERSION: string = pkg.version;

export async function main(argv: string[], io: CliIo, cwd: string, processEnv: NodeJS.ProcessEnv): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (e) {
    io.stderr(`pipec: ${(e as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values: v, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (v.version) {
    io.stdout(`pipec ${VERSION}\n`);
    return 0;
  }
  // `pipec help build` and `pipec build --help` print the same page.
  const helpFor = v.help && command ? command : command === 'help' ? rest[0] : undefined;
  if (helpFor !== undefined) {
    const page = commandHelp(helpFor);
    if (page === null) return usage(io, `unknown command '${helpFor}'`);
    io.stdout(page);
    return 0;
  }
  if (!command || v.help || command === 'help') {
    io.stdout(USAGE);
    return command || v.help ? 0 : 2;
  }
  let ctx;
  try {
    ctx = makeContext(cwd, v.profile ?? null, v['no-color'] ? { ...processEnv, NO_COLOR: '1' } : processEnv, io);
  } catch (e) {
    if (e instanceof ProfileError) {
      io.stderr(`pipec: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
  const format = (v.format ?? 'text') as DiagnosticFormat;
  const denyWarnings = v['deny-warnings'] ?? false;
  switch (command) {
    case 'check':
      if (format !== 'text' && format !== 'json') return usage(io, `unknown --format '${format}' (text, json)`);
      return (await import('./commands/check.ts')).checkCommand(ctx, { paths: rest, format, denyWarnings, target: v.target ?? ctx.defaultTargets });
    case 'build':
      if (format !== 'text' && format !== 'json') return usage(io, `unknown --format '${format}' (text, json)`);
      return (await import('./commands/build.ts')).buildCommand(ctx, { paths: rest, target: v.target ?? ctx.defaultTargets, out: v.out ?? 'generated', bundleDir: v.bundle, check: v.check ?? false, format, denyWarnings });
    case 'plan':
      return (await import('./commands/plan.ts')).planCommand(ctx, { file: rest[0], format: v.format ?? 'text', optimize: !v['no-optimize'], physical: v.physical ?? false });
    case 'run': {
      const port = v['metrics-port'] === undefined ? null : Number(v['metrics-port']);
      if (port !== null && !(Number.isInteger(port) && port >= 0 && port < 65536)) return usage(io, `--metrics-port must be a port number`);
      const workers = v.workers === undefined ? null : Number(v.workers);
      if (workers !== null && !(Number.isInteger(workers) && workers >= 1 && workers <= 256)) return usage(io, `--workers must be a whole number from 1 to 256`);
      return (await import('./commands/run.ts')).runCommand(ctx, { file: rest[0], checkpointDir: v['checkpoint-dir'] ?? null, metricsPort: port, memberId: v['member-id'] ?? null, workers });
    }
    case 'init':
      return (await import('./commands/init.ts')).initCommand(ctx, { dir: rest[0] });
    case 'test': {
      const reporter = v.reporter ?? 'text';
      if (reporter !== 'text' && reporter !== 'junit' && reporter !== 'json') return usage(io, `unknown --reporter '${reporter}' (text, junit, json)`);
      return (await import('./commands/test.ts')).testCommand(ctx, { paths: rest, update: v.update ?? false, reporter, target: v.target ?? 'runtime', chdbPython: v['chdb-python'], flinkPython: v['flink-python'] });
    }
    case 'diff':
      return (await import('./commands/diff.ts')).diffCommand(ctx, { paths: rest, base: v.base ?? null });
    case 'explain':
      return (await import('./commands/explain.ts')).explainCommand(ctx, rest[0]);
    case 'fmt': {
      const to = v.to ?? null;
      if (to !== null && to !== 'sql' && to !== 'yaml') return usage(io, `--to must be sql or yaml`);
      return (await import('./commands/fmt.ts')).fmtCommand(ctx, { paths: rest, to, check: v.check ?? false, write: v.write ?? false, diff: v.diff ?? false });
    }
    case 'compact':
      return (await import('./commands/compact.ts')).compactCommand(ctx, { file: rest[0] });
    case 'query': {
      const qf = v.format ?? 'table';
      if (qf !== 'table' && qf !== 'csv' && qf !== 'json') return usage(io, `unknown --format '${qf}' (table, csv, json)`);
      return (await import('./commands/query.ts')).queryCommand(ctx, { sql: rest[0], paths: rest.slice(1), format: qf, snapshot: v.snapshot ?? null });
    }
    default:
      return usage(io, `unknown command '${command}'`);
  }
}

function usage(io: CliIo, message: string): number {
  io.stderr(`pipec: ${message}\n\n${USAGE}`);
  return 2;
}

/**
 * The process entry (bin/pipec.mjs calls it): argv, stdio and the exit code of this process.
 * An explicit call, not an "am I the main module" check, so the CLI works the same through
 * npx, node_modules/.bin symlinks, npm link and global installs.
 */
export async function runCli(argv: string[] = process.argv.slice(2)): Promise<void> {
  const io: CliIo = {
    stdout: (s) => void process.stdout.write(s),
    stderr: (s) => void process.stderr.write(s),
    isTty: Boolean(process.stderr.isTTY),
  };
  try {
    process.exitCode = await main(argv, io, process.cwd(), process.env);
  } catch (err: unknown) {
    const debug = Boolean(process.env.PIPEC_DEBUG);
    const detail = err instanceof Error ? (debug ? (err.stack ?? err.message) : err.message) : String(err);
    io.stderr(
      `pipec: internal error — this is a bug in pipec, not in your spec: ${detail}\n` +
        `Please report it with the spec you compiled${debug ? '' : ' (run again with PIPEC_DEBUG=1 to include the trace)'}.\n`,
    );
    process.exitCode = 70;
  }
  // Done: a client's lingering sockets or retry timers (after a failed run) must not keep the
  // process alive. Output has two seconds to drain.
  setTimeout(() => process.exit(), 2000).unref();
}
