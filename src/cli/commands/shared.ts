// Small pieces several commands share.
import { DiagnosticBag } from '../../diagnostics/bag.ts';
import type { Diagnostic } from '../../diagnostics/diagnostic.ts';
import { syntheticSpan } from '../../diagnostics/span.ts';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { CommandContext } from '../context.ts';

/** `file-not-found` for each missing path, `not-a-spec-file` for each file with another ending. */
export function reportMissing(missing: string[], notSpecs: string[] = []): Diagnostic[] {
  const bag = new DiagnosticBag();
  for (const path of missing) bag.report('file-not-found', syntheticSpan(path), { path });
  for (const path of notSpecs) bag.report('not-a-spec-file', syntheticSpan(path), { path });
  return bag.items;
}

/**
 * The paths a command works on: those given, else the project's spec folders (`specs:` of
 * pipec.yaml, default specs/). Null, with a message saying what to give, when none was given and
 * no spec folder exists (a user's repository keeps its specs elsewhere, e.g. pipelines/).
 */
export function specPaths(ctx: CommandContext, given: string[], command: string): string[] | null {
  if (given.length) return given;
  if (ctx.defaultPaths.some((p) => existsSync(resolve(ctx.cwd, p)))) return ctx.defaultPaths;
  const folders = ctx.defaultPaths.map((p) => `${p}/`).join(', ');
  ctx.io.stderr(`pipec ${command}: no paths given and no ${folders} folder here (set \`specs:\` in pipec.yaml, or name the spec folders or files, e.g. \`pipec ${command} pipelines\`)\n`);
  return null;
}
