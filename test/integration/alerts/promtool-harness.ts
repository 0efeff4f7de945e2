// Shared parts of the alert-rule tests: the rule file a PrometheusRule holds, `promtool`, a
// free port, scraping a real `/metrics`, and turning a rule plus the series a real run exported
// into `promtool test rules` cases (once with values that must fire it, once with values that
// must not). The values come from a scenario per alert, or from the real scrape itself.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import * as path from 'node:path';
import { parse, stringify } from 'yaml';

export interface Series {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface RuleDoc {
  alert: string;
  expr: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

export function promtool(args: string[], cwd: string): { status: number; out: string } {
  const r = spawnSync('promtool', args, { cwd, encoding: 'utf8' });
  if (r.error) throw new Error(`promtool is not installed (Debian package prometheus; .ci/run installs it): ${r.error.message}`);
  return { status: r.status ?? -1, out: `${r.stdout}${r.stderr}` };
}

/** The `spec` of a PrometheusRule (a plain rule file), written where promtool can read it. */
export function ruleFile(alertsYaml: string, dir: string): { file: string; rules: RuleDoc[] } {
  const doc = parse(alertsYaml) as { kind: string; spec: { groups: { rules: RuleDoc[] }[] } };
  assert.equal(doc.kind, 'PrometheusRule');
  const file = path.join(dir, 'rules.yaml');
  writeFileSync(file, stringify(doc.spec));
  return { file, rules: doc.spec.groups.flatMap((g) => g.rules) };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** The labelled samples of a Prometheus text exposition. */
export function parseScrape(text: string): Series[] {
  const out: Series[] = [];
  for (const line of text.split('\n')) {
    const m = /^([a-z_]+)\{([^}]*)\} (\S+)$/.exec(line);
    if (!m) continue;
    const labels = Object.fromEntries([...m[2]!.matchAll(/([a-z_]+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1]!, l[2]!]));
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

export async function scrape(port: number): Promise<string | null> {
  return fetch(`http://127.0.0.1:${port}/metrics`)
    .then((r) => r.text())
    .catch(() => null);
}

/** Values a rule's series take (promtool expanding notation, one sample a minute for 4 h) to make it fire or stay quiet. */
export const SCENARIOS: Record<string, (metric: string) => { fire: string; quiet: string }> = {
  PipecConsumerLagHigh: () => ({ fire: '1000000000+0x240', quiet: '0+0x240' }),
  PipecWatermarkStalled: (m) => (m === 'pipec_watermark_ms' ? { fire: '1000+0x240', quiet: '1000+60000x240' } : { fire: '0+10x240', quiet: '0+10x240' }),
  PipecDeadLetters: () => ({ fire: '0+1x240', quiet: '5+0x240' }),
  PipecLateEvents: () => ({ fire: '0+1x240', quiet: '1+0x240' }),
  PipecCheckpointSlow: () => ({ fire: '1000000+0x240', quiet: '0+0x240' }),
  PipecCheckpointsStopped: () => ({ fire: '3+0x240', quiet: '3+1x240' }),
  PipecReplicationSlotLag: () => ({ fire: '10000000000000+0x240', quiet: '0+0x240' }),
  PipecIcebergSmallFiles: (m) => (m.includes('_small_') ? { fire: '0+1x240', quiet: '0+0x240' } : { fire: '0+1x240', quiet: '0+1x240' }),
};

/** The metric selectors of an expression: `name{a="x", b="y"}`. */
export function selectors(expr: string): { metric: string; labels: Record<string, string> }[] {
  return [...expr.matchAll(/(pipec_[a-z_]+)\{([^}]*)\}/g)].map((m) => ({
    metric: m[1]!,
    labels: Object.fromEntries([...m[2]!.matchAll(/([a-z_]+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1]!, l[2]!])),
  }));
}

export const seriesText = (s: Pick<Series, 'name' | 'labels'>): string => `${s.name}{${Object.entries(s.labels).map(([k, v]) => `${k}="${v}"`).join(',')}}`;

/** The annotation as Prometheus expands it for an alert with these labels. */
const expand = (text: string, labels: Record<string, string>): string =>
  text.replace(/\{\{ \$labels\.([a-z_]+) \}\}/g, (_, k: string) => labels[k] ?? '').replaceAll('{{ "{{" }}', '{{');

/** The real series each selector of the rule picks; there must be some, or the rule watches nothing. */
export function pickedSeries(rule: RuleDoc, scraped: Series[]): Series[] {
  const picked = new Map<string, Series>();
  for (const sel of selectors(rule.expr)) {
    const hits = scraped.filter((s) => s.name === sel.metric && Object.entries(sel.labels).every(([k, v]) => s.labels[k] === v));
    assert.ok(hits.length > 0, `${rule.alert}: ${sel.metric}${JSON.stringify(sel.labels)} matches a series of the real /metrics`);
    for (const h of hits) picked.set(seriesText(h), h);
  }
  return [...picked.values()];
}

/** The alerts a firing rule raises: one per series of its first selector, with that series' labels. */
export function expectedAlerts(rule: RuleDoc, picked: Series[]): unknown[] {
  const first = selectors(rule.expr)[0]!;
  return picked
    .filter((s) => s.name === first.metric)
    .map((s) => {
      const labels = { ...s.labels, ...rule.labels };
      return { exp_labels: labels, exp_annotations: Object.fromEntries(Object.entries(rule.annotations).map(([k, v]) => [k, expand(v, labels)])) };
    });
}

/** One `promtool test rules` case: these series with these values, and whether the rule must fire at 3 h. */
export function ruleCase(name: string, rule: RuleDoc, picked: Series[], values: (s: Series) => string, fires: boolean): unknown {
  return {
    name,
    interval: '1m',
    input_series: picked.map((s) => ({ series: seriesText(s), values: values(s) })),
    alert_rule_test: [{ eval_time: '3h', alertname: rule.alert, exp_alerts: fires ? expectedAlerts(rule, picked) : [] }],
  };
}

/** Writes the cases next to rules.yaml and runs `promtool test rules` on them. */
export function runRuleTests(ruleDir: string, tests: unknown[]): void {
  writeFileSync(path.join(ruleDir, 'tests.yaml'), stringify({ rule_files: ['rules.yaml'], evaluation_interval: '1m', tests }));
  const r = promtool(['test', 'rules', 'tests.yaml'], ruleDir);
  assert.equal(r.status, 0, `promtool test rules:\n${r.out}\n(tests in ${ruleDir}/tests.yaml)`);
  assert.match(r.out, /SUCCESS/);
}
