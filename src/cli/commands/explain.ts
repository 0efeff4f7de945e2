// `pipec explain CODE`: the long explanation of a diagnostic code, from the one registry
// (through the library API's explain() and codes()); `pipec explain kafka` / `kafka.topic`: a
// connector's options, from its descriptor (src/connectors/, the source of docs/connectors.md).
import { codes, explain } from '../../api.ts';
import { explainableConnectorTopics, explainConnector } from '../../build/explain-connector.ts';
import { suggest } from '../../util/suggest.ts';
import type { CommandContext } from '../context.ts';

export function explainCommand(ctx: CommandContext, code: string | undefined): number {
  if (!code) {
    const rows = codes().map((d) => `  ${d.code.padEnd(36)} ${d.severity.padEnd(8)} ${d.title}`);
    const names = explainableConnectorTopics().filter((t) => !t.includes('.'));
    ctx.io.stdout(`diagnostic codes:\n${rows.join('\n')}\n\nconnectors (pipec explain <connector>[.<option>]): ${names.join(', ')}\n`);
    return 0;
  }
  const d = explain(code);
  if (d) {
    ctx.io.stdout(`${code} (${d.severity}): ${d.title}\n\n${d.explain}\n`);
    return 0;
  }
  const connector = explainConnector(code);
  if (connector !== null) {
    ctx.io.stdout(connector);
    return 0;
  }
  const hint = suggest(code, [...codes().map((c) => c.code), ...explainableConnectorTopics()]);
  ctx.io.stderr(`pipec: no diagnostic code, connector or connector option '${code}'${hint ? ` — did you mean '${hint}'?` : ''}\n`);
  return 1;
}
