// docs/connectors.md from the connector descriptors: one section per connector, one table per
// side (option, type, required, default, secret, what it does) and how each target realises it.
// Pure and deterministic (descriptor order, no clock); `npm run docs:connectors` writes it and
// test/unit/connectors/docs-fresh.test.ts fails when the file is stale.
import type { ConnectorDescriptor, OptSpec, OptType } from './descriptor.ts';

export const CONNECTOR_DOCS_PATH = 'docs/connectors.md';

export function typeText(t: OptType): string {
  switch (t.kind) {
    case 'string':
      return 'string';
    case 'duration':
      return "duration ('30 s')";
    case 'size':
      return "size ('128 MB')";
    case 'int':
      return t.min !== undefined && t.max !== undefined ? `integer ${t.min}..${t.max}` : t.min !== undefined ? `integer ≥ ${t.min}` : 'integer';
    case 'number':
      return 'number';
    case 'boolean':
      return 'true / false';
    case 'enum':
      return t.values.map((v) => `'${v}'`).join(' / ');
  }
}

/** A table cell: pipes escaped, newlines folded. */
const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');

function optionTable(options: readonly OptSpec[]): string[] {
  const rows = options.map((o) => `| \`${o.key}\` | ${cell(typeText(o.type))} | ${o.required ? 'yes' : ''} | ${cell(o.default ?? '')} | ${o.secret ? 'yes' : ''} | ${cell(o.doc ?? '')} |`);
  return ['| option | type | required | default | secret | |', '|---|---|---|---|---|---|', ...rows];
}

function section(d: ConnectorDescriptor): string[] {
  const sides = [d.source ? 'source' : null, d.sink ? 'sink' : null].filter((x) => x !== null).join(' and ');
  const out = [`## \`${d.name}\` (${sides})`, '', d.doc, ''];
  if (d.source) {
    out.push('### Source options', '', ...optionTable(d.source.options), '');
    if (d.source.dynamic) out.push(`Per-column options \`${d.source.dynamic.pattern}\`: ${d.source.dynamic.doc}`, '');
  }
  if (d.sink) out.push('### Sink options', '', ...optionTable(d.sink.options), '');
  if (d.lints && d.lints.length > 0) out.push(`Lints: ${d.lints.map((l) => `\`${l.code}\``).join(', ')} (\`pipec explain <code>\`).`, '');
  const t = d.targets;
  const lines: string[] = [];
  const rt = [t.runtime?.source ? `source \`@pipec/runtime/${t.runtime.source.module}\`` : null, t.runtime?.sink ? `sink \`@pipec/runtime/${t.runtime.sink.module}\`` : null].filter((x) => x !== null);
  lines.push(`- runtime: ${rt.length > 0 ? rt.join(', ') : 'not supported'}`);
  lines.push(`- ClickHouse: ${t.clickhouse ?? 'not supported'}`);
  lines.push(`- Iceberg: ${t.iceberg ?? 'not applicable'}`);
  const fl = [t.flink?.source ? `source \`${t.flink.source}\`` : null, t.flink?.sink ? `sink \`${t.flink.sink}\`` : null].filter((x) => x !== null);
  lines.push(`- Flink SQL: ${fl.length > 0 ? fl.join(', ') : 'not supported'}`);
  out.push('### Targets', '', ...lines, '');
  return out;
}

export function connectorsMarkdown(list: readonly ConnectorDescriptor[]): string {
  const head = [
    '# Connectors',
    '',
    '<!-- Generated from src/connectors/<name>/descriptor.ts by `npm run docs:connectors`; do not edit by hand. -->',
    '',
    "Every `CREATE SOURCE` / `CREATE SINK` names its connector with `connector = '...'`. Options outside a",
    "connector's table are errors (`unknown-option`), a missing required one is `missing-option`, a value of",
    'the wrong type `invalid-option-value`. Defaults are applied once, when the plan is lowered; `pipec plan',
    '--physical` shows every resolved value. Secret options should use `${VAR}`: generated files keep the template.',
    '',
    `Connectors: ${list.map((d) => `[\`${d.name}\`](#${d.name.replace(/[^a-z0-9-]/g, '')}-${[d.source ? 'source' : '', d.sink ? 'sink' : ''].filter((x) => x).join('-and-')})`).join(', ')}.`,
    '',
  ];
  return [...head, ...list.flatMap(section)].join('\n').replace(/\n+$/, '\n');
}
