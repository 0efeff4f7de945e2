// `pipec explain CODE`: the long explanation of a diagnostic code, from the one registry.
import { CODES, lookupCode } from '../../diagnostics/registry.ts';
import { suggest } from '../../util/suggest.ts';
import type { CommandContext } from '../context.ts';

export function explainCommand(ctx: CommandContext, code: string | undefined): number {
  if (!code) {
    const rows = Object.entries(CODES)
      .filter(([c]) => !c.endsWith('-placeholder-unused'))
      .map(([c, d]) => `  ${c.padEnd(36)} ${d.severity.padEnd(8)} ${d.title}`);
    ctx.io.stdout(`diagnostic codes:\n${rows.join('\n')}\n`);
    return 0;
  }
  const d = lookupCode(code);
  if (!d) {
    const hint = suggest(code, Object.keys(CODES));
    ctx.io.stderr(`pipec: no diagnostic code '${code}'${hint ? ` — did you mean '${hint}'?` : ''}\n`);
    return 1;
  }
  ctx.io.stdout(`${code} (${d.severity}): ${d.title}\n\n${d.explain}\n`);
  return 0;
}
