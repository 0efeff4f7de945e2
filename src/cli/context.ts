// What every command needs: the working directory, the environment resolver of the active
// profile, and how to print diagnostics (colour on a TTY, plain otherwise, or JSON).
import { readFileSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import type { Diagnostic } from '../diagnostics/diagnostic.ts';
import { diagnosticsToJson, renderDiagnostics, summaryLine } from '../diagnostics/render.ts';
import { findProjectConfig, profileEnv, resolverOf } from '../build/profile.ts';
import type { EnvResolver } from '../build/profile.ts';

export interface CliIo {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  isTty: boolean;
}

export interface CommandContext {
  cwd: string;
  env: EnvResolver;
  /** What `env` resolves, as a record: the active profile overlaid by the environment (for `pipec run`). */
  resolvedEnv: Record<string, string | undefined>;
  processEnv: NodeJS.ProcessEnv;
  io: CliIo;
  /** What check, build and fmt work on without a path: pipec.yaml's `specs:` folders, relative to cwd. */
  defaultPaths: string[];
  /** What check and build use without --target: pipec.yaml's `targets:` (default `all`). */
  defaultTargets: string;
}

export function makeContext(cwd: string, profile: string | null, processEnv: NodeJS.ProcessEnv, io: CliIo): CommandContext {
  const config = findProjectConfig(cwd);
  const defaultPaths = config.specs.map((p) => relative(cwd, p) || '.');
  const resolvedEnv = profileEnv(config, profile, processEnv);
  return { cwd, env: resolverOf(resolvedEnv), resolvedEnv, processEnv, io, defaultPaths, defaultTargets: config.targets ?? 'all' };
}

export type DiagnosticFormat = 'text' | 'json';

/** Prints diagnostics to stderr (text) or stdout (json), then a summary line for text. */
export function printDiagnostics(ctx: CommandContext, ds: Diagnostic[], format: DiagnosticFormat): void {
  if (format === 'json') {
    ctx.io.stdout(diagnosticsToJson(ds));
    return;
  }
  if (ds.length === 0) return;
  const color = ctx.io.isTty && !ctx.processEnv.NO_COLOR;
  ctx.io.stderr(
    renderDiagnostics(ds, {
      color,
      readSource: (file) => {
        try {
          return readFileSync(isAbsolute(file) ? file : join(ctx.cwd, file), 'utf8');
        } catch {
          return null;
        }
      },
    }),
  );
  ctx.io.stderr(`\n${summaryLine(ds)}\n`);
}

/** `--deny-warnings` makes warnings fail the command (CI). */
export function failed(ds: Diagnostic[], denyWarnings: boolean): boolean {
  return ds.some((d) => d.severity === 'error' || (denyWarnings && d.severity === 'warning'));
}
