// `pipec explain CODE`: the long explanation of a diagnostic code, from the one registry
// (through the library API's explain() and codes()).
import { codes, explain } from '../../api.ts';
import { suggest } from '../../util/suggest.ts';
import type { CommandContext } from '../context.ts';

export function explainCommand(ctx: CommandContext, code: string | undefined): number {
  if (!code) {
    const rows = codes().map((d) => `  ${d.code.padEnd(36)} ${d.severity.padEnd(8)} ${d.title}`);
    ctx.io.stdout(`diagnostic codes:\n${rows.join('\n')}\n`);
    return 0;
  }
  const d = explain(code);
  if (!d) {
    const hint = suggest(code, codes().map((c) => c.code));
    ctx.io.stderr(`pipec: no diagnostic code '${code}'${hint ? ` — did you mean '${hint}'?` : ''}\n`);
    return 1;
  }
  ctx.io.stdout(`${code} (${d.severity}): ${d.title}\n\n${d.explain}\n`);
  return 0;
}
