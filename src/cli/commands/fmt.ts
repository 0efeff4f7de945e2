// `pipec fmt [paths] [--to yaml|sql] [--check]`: canonical formatting in place, or conversion
// between the two forms (printed to stdout, or written next to the input with --write).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { discoverSpecs } from '../../build/discover.ts';
import { format } from '../../api.ts';
import { printDiagnostics, type CommandContext } from '../context.ts';

export interface FmtArgs {
  paths: string[];
  to: 'sql' | 'yaml' | null;
  check: boolean;
  write: boolean;
}

// fmt keeps `${VAR}` text as written (api.format), so it never needs the variables' values.

export function fmtCommand(ctx: CommandContext, args: FmtArgs): number {
  const { files, missing, notSpecs } = discoverSpecs(args.paths.length ? args.paths : ctx.defaultPaths, ctx.cwd);
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
    if (sameForm) {
      if (formatted === text) continue;
      if (args.check) {
        ctx.io.stderr(`${file}: not formatted\n`);
        status = 1;
      } else {
        writeFileSync(join(ctx.cwd, file), formatted);
        ctx.io.stderr(`formatted ${file}\n`);
      }
    } else if (args.write) {
      const out = file.replace(/\.pipe\.(sql|ya?ml)$/, to === 'sql' ? '.pipe.sql' : '.pipe.yaml');
      writeFileSync(join(ctx.cwd, out), formatted);
      ctx.io.stderr(`wrote ${out}\n`);
    } else {
      ctx.io.stdout(formatted);
    }
  }
  return status;
}
