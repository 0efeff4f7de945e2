// `pipec explain <connector>` and `pipec explain <connector>.<option>`: a connector's option docs as
// plain text, from its descriptor (the same source as docs/connectors.md). Pure.
import type { ConnectorDescriptor, OptSpec } from './descriptor.ts';
import { typeText } from './docs.ts';
import { connectors } from './index.ts';

const sides = (d: ConnectorDescriptor): [string, readonly OptSpec[]][] => [
  ...(d.source ? ([['source', d.source.options]] as [string, readonly OptSpec[]][]) : []),
  ...(d.sink ? ([['sink', d.sink.options]] as [string, readonly OptSpec[]][]) : []),
];

/** One option on one line: key (type, required / default, secret) — what it does. */
function optionLine(o: OptSpec): string {
  const facts = [typeText(o.type), o.required ? 'required' : null, o.default !== undefined ? `default ${o.default.replace(/`/g, '')}` : null, o.secret ? 'secret: use ${VAR}' : null].filter((x) => x !== null);
  return `${o.key} (${facts.join(', ')})${o.doc ? ` — ${o.doc.replace(/`/g, '')}` : ''}`;
}

function connectorText(d: ConnectorDescriptor): string {
  const kinds = [d.source ? 'source' : null, d.sink ? 'sink' : null].filter((x) => x !== null).join(' and ');
  const out = [`${d.name} (connector, ${kinds}): ${d.doc.replace(/`/g, '')}`];
  for (const [side, options] of sides(d)) {
    out.push('', `${side} options:`, ...options.map((o) => `  ${optionLine(o)}`));
    if (side === 'source' && d.source?.dynamic) out.push(`  ${d.source.dynamic.pattern}: ${d.source.dynamic.doc.replace(/`/g, '')}`);
  }
  if (d.lints && d.lints.length > 0) out.push('', `lints: ${d.lints.map((l) => l.code).join(', ')} (pipec explain <code>)`);
  out.push('', `one option: pipec explain ${d.name}.<option>`);
  return out.join('\n') + '\n';
}

function optionText(d: ConnectorDescriptor, key: string): string | null {
  const lines = sides(d).flatMap(([side, options]) => options.filter((o) => o.key === key).map((o) => `${d.name} ${side} option ${optionLine(o)}`));
  return lines.length > 0 ? lines.join('\n') + '\n' : null;
}

/**
 * The text `pipec explain` prints for `kafka` or `kafka.topic` (option keys may hold dots:
 * `kafka.fetch.max_bytes`), or null when no connector or option has that name.
 */
export function explainConnector(topic: string): string | null {
  const list = connectors();
  const whole = list.find((d) => d.name === topic);
  if (whole) return connectorText(whole);
  const d = list.find((c) => topic.startsWith(`${c.name}.`));
  return d ? optionText(d, topic.slice(d.name.length + 1)) : null;
}

/** Every name `explainConnector` answers, for suggestions: connectors, then `connector.option`. */
export function explainableConnectorTopics(): string[] {
  const list = connectors();
  return [...list.map((d) => d.name), ...list.flatMap((d) => [...new Set(sides(d).flatMap(([, options]) => options.map((o) => `${d.name}.${o.key}`)))])];
}
