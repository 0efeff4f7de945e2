// `pipec fmt [paths] [--to yaml|sql] [--write | --check | --diff]`: canonical formatting, or
// conversion between the two forms. Like prettier and gofmt, it prints the result to stdout;
// --write writes it (in place, or next to the input when converting), --check fails on an
// unformatted file, --diff prints a unified diff of what --write would change.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { discoverSpecs } from '../../build/discover.ts';
import { specPaths } from './shared.ts';
import { format } from '../../api.ts';
import { printDiagnostics, type CommandContext } from '../context.ts';

export interface FmtArgs {
  paths: string[];
  to: 'sql' | 'yaml' | null;
  check: boolean;
  write: boolean;
  diff: boolean;
}

// fmt keeps `${VAR}` text as written (api.format), so it never needs the variables' values.

export function fmtCommand(ctx: CommandContext, args: FmtArgs): number {
  const paths = specPaths(ctx, args.paths, 'fmt');
  if (!paths) return 2;
  const { files, missing, notSpecs } = discoverSpecs(paths, ctx.cwd);
  if (missing.length) {
    ctx.io.stderr(`pipec fmt: not found: ${missing.join(', ')}\n`);
    return 1;
  }
  if (notSpecs.length) {
    ctx.io.stderr(`pipec fmt: not a .pipe.sql or .pipe.yaml file: ${notSpecs.join(', ')}\n`);
    return 1;
  }
  let status = 0;
  for (const file of files) {
    const text = readFileSync(join(ctx.cwd, file), 'utf8');
    const isSql = file.endsWith('.pipe.sql');
    const to = args.to ?? (isSql ? 'sql' : 'yaml');
    const r = format({ path: file, text, to });
    if (r.text === null) {
      printDiagnostics(ctx, r.diagnostics, 'text');
      status = 1;
      continue;
    }
    const formatted = r.text;
    const sameForm = (to === 'sql') === isSql;
    const out = sameForm ? file : file.replace(/\.pipe\.(sql|ya?ml)$/, to === 'sql' ? '.pipe.sql' : '.pipe.yaml');
    if (args.check || args.diff) {
      // Only a reformat has a "before"; a conversion is a new file.
      if (!sameForm || formatted === text) continue;
      if (args.diff) ctx.io.stdout(createTwoFilesPatch(`a/${file}`, `b/${file}`, text, formatted, '', '', { context: 3 }).replace(/^=+\n/, ''));
      if (args.check) {
        ctx.io.stderr(`${file}: not formatted\n`);
        status = 1;
      }
    } else if (args.write) {
      if (sameForm && formatted === text) continue;
      writeFileSync(join(ctx.cwd, out), formatted);
      ctx.io.stderr(`${sameForm ? 'formatted' : 'wrote'} ${out}\n`);
    } else {
      // Several files on stdout: each is preceded by a comment naming it.
      if (files.length > 1) ctx.io.stdout(`${to === 'sql' ? '--' : '#'} ${out}\n`);
      ctx.io.stdout(formatted);
    }
  }
  return status;
}
