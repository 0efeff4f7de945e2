// `pipec init [dir]`: writes a working project (init-files.ts) into dir (default: here), then
// builds it, so `pipec check --deny-warnings`, `pipec test` and `pipec build --check` pass at
// once. It never overwrites: a file already there ends the command before anything is written.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { GITIGNORE_LINES, INIT_FILES } from '../init-files.ts';
import { makeContext, type CommandContext } from '../context.ts';
import { buildCommand } from './build.ts';

export async function initCommand(ctx: CommandContext, args: { dir: string | undefined }): Promise<number> {
  const root = resolve(ctx.cwd, args.dir ?? '.');
  const shown = (p: string): string => relative(ctx.cwd, join(root, p)) || p;
  const taken = [...Object.keys(INIT_FILES), 'generated'].filter((p) => existsSync(join(root, p)));
  if (taken.length) {
    ctx.io.stderr(`pipec init: ${taken.map(shown).join(', ')} already exist${taken.length === 1 ? 's' : ''}; nothing written (init a new folder, or move them away)\n`);
    return 1;
  }
  for (const [p, text] of Object.entries(INIT_FILES)) {
    mkdirSync(dirname(join(root, p)), { recursive: true });
    writeFileSync(join(root, p), text);
  }
  const ignore = join(root, '.gitignore');
  const had = existsSync(ignore) ? readFileSync(ignore, 'utf8') : '';
  const missing = GITIGNORE_LINES.filter((l) => !had.split(/\r?\n/).includes(l));
  if (missing.length) writeFileSync(ignore, had + (had && !had.endsWith('\n') ? '\n' : '') + missing.join('\n') + '\n');
  // generated/ is what `pipec build --check` compares with: write it now, from the new project's own settings.
  const sub = makeContext(root, null, ctx.processEnv, ctx.io);
  const code = await buildCommand(sub, { paths: [], target: 'all', out: join(root, 'generated'), check: false, format: 'text', denyWarnings: false });
  if (code !== 0) return code;
  ctx.io.stdout(
    [
      `pipec init: wrote ${[...Object.keys(INIT_FILES), '.gitignore', 'generated/'].map(shown).join(', ')}`,
      '',
      'next:',
      `  ${args.dir ? `cd ${args.dir} && ` : ''}pipec test                      # the spec's tests, on scripted input`,
      '  pipec run specs/page_counts.pipe.sql   # 1000 synthetic views into specs/out/page_counts_1m.ndjson',
      '  pipec check --deny-warnings && pipec build --check   # what CI runs (.github/workflows/pipec.yml)',
      '',
    ].join('\n'),
  );
  return 0;
}
