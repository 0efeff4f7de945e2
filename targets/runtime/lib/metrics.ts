// Counters of a running pipeline, the Prometheus text exposition of them, and the HTTP
// server for `/metrics` and `/health` (bound to 127.0.0.1 only).
import * as http from 'node:http';
import { watermarksText } from './status-line.ts';

export interface Metrics {
  pipeline: string;
  startedAt: number;
  recordsIn: () => Map<string, number>;
  deadLetters: () => Map<string, number>;
  watermarks: Map<string, number>;
  late: Map<string, number>;
  recordsOut: () => Map<string, number>;
  stateSize: () => Map<string, number>;
  /** Per GROUP BY operator: retractions of groups it does not hold (evicted by `state_ttl`). */
  ignoredRetractions: () => Map<string, number>;
  /** Consumer lag per source that reports one. */
  lag: () => Map<string, { records: number; seconds: number }>;
  /** Connector-specific gauges per source name (`RunningSource.gauges`). */
  gauges: () => Map<string, Record<string, { help: string; value: number }>>;
  /** Connector-specific counters per sink name (`RunningSink.counters`). */
  sinkCounters?: () => Map<string, Record<string, { help: string; value: number }>>;
  checkpoints: number;
  lastCheckpointAt: number | null;
  lastCheckpointMs: number;
  lastCheckpointBytes: number;
}

const esc = (s: string): string => s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

export function prometheusText(m: Metrics, now: number): string {
  const out: string[] = [];
  const family = (name: string, type: string, help: string, rows: [string, number][]): void => {
    out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    for (const [labels, v] of rows) out.push(`${name}${labels} ${Number.isFinite(v) ? v : v > 0 ? '+Inf' : '-Inf'}`);
  };
  const lbl = (k: string, v: string): string => `{pipeline="${esc(m.pipeline)}",${k}="${esc(v)}"}`;
  const p = `{pipeline="${esc(m.pipeline)}"}`;
  family('pipec_records_in_total', 'counter', 'Records read per source.', [...m.recordsIn()].map(([s, v]) => [lbl('source', s), v]));
  family('pipec_records_out_total', 'counter', 'Rows written per sink.', [...m.recordsOut()].map(([s, v]) => [lbl('sink', s), v]));
  family('pipec_dead_letters_total', 'counter', 'Records sent to the dead-letter sink per source.', [...m.deadLetters()].map(([s, v]) => [lbl('source', s), v]));
  family('pipec_late_events_total', 'counter', 'Events later than the allowed lateness per window or interval-join operator.', [...m.late].map(([s, v]) => [lbl('operator', s), v]));
  family('pipec_watermark_lag_seconds', 'gauge', 'Processing time minus the source watermark.', [...m.watermarks].filter(([, w]) => Number.isFinite(w)).map(([s, w]) => [lbl('source', s), (now - w) / 1000]));
  family('pipec_watermark_ms', 'gauge', 'Source watermark in epoch milliseconds.', [...m.watermarks].map(([s, w]) => [lbl('source', s), w]));
  family('pipec_consumer_lag_records', 'gauge', 'Records the source is behind its upstream.', [...m.lag()].map(([s, v]) => [lbl('source', s), v.records]));
  family('pipec_consumer_lag_seconds', 'gauge', 'Seconds the source is behind its upstream.', [...m.lag()].map(([s, v]) => [lbl('source', s), v.seconds]));
  family('pipec_state_entries', 'gauge', 'State entries held per operator (groups x panes, sessions, join rows).', [...m.stateSize()].map(([s, v]) => [lbl('operator', s), v]));
  family('pipec_ignored_retractions_total', 'counter', 'Retractions (-U/-D) of groups a GROUP BY no longer holds (evicted by state_ttl): their rows stay in the output.', [...m.ignoredRetractions()].map(([s, v]) => [lbl('operator', s), v]));
  family('pipec_checkpoints_total', 'counter', 'Checkpoints completed.', [[p, m.checkpoints]]);
  family('pipec_checkpoint_duration_seconds', 'gauge', 'Duration of the last checkpoint.', [[p, m.lastCheckpointMs / 1000]]);
  family('pipec_checkpoint_size_bytes', 'gauge', 'Size of the last checkpoint.', [[p, m.lastCheckpointBytes]]);
  // Connector gauges (per source) and counters (per sink), one family per name, in name order (stable output).
  const connectorFamilies = (type: string, label: string, values: Map<string, Record<string, { help: string; value: number }>>): void => {
    const byName = new Map<string, { help: string; rows: [string, number][] }>();
    for (const [owner, gs] of values) {
      for (const [name, g] of Object.entries(gs)) {
        const f = byName.get(name) ?? { help: g.help, rows: [] };
        f.rows.push([lbl(label, owner), g.value]);
        byName.set(name, f);
      }
    }
    for (const name of [...byName.keys()].sort()) family(name, type, byName.get(name)!.help, byName.get(name)!.rows);
  };
  connectorFamilies('gauge', 'source', m.gauges());
  connectorFamilies('counter', 'sink', m.sinkCounters?.() ?? new Map());
  return out.join('\n') + '\n';
}

export function startMetricsServer(m: Metrics, port: number): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    if (req.url === '/metrics') {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
      res.end(prometheusText(m, Date.now()));
    } else if (req.url === '/health') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: 'ok', pipeline: m.pipeline, uptimeSeconds: (Date.now() - m.startedAt) / 1000 }));
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

/** One status line for a TTY: throughput, watermarks, open windows, late/dead counts, last checkpoint. */
export function statusLine(m: Metrics, prevIn: number, prevOut: number, dtMs: number, now: number): { text: string; totalIn: number; totalOut: number } {
  let totalIn = 0;
  for (const v of m.recordsIn().values()) totalIn += v;
  let totalOut = 0;
  for (const v of m.recordsOut().values()) totalOut += v;
  let state = 0;
  for (const v of m.stateSize().values()) state += v;
  let late = 0;
  for (const v of m.late.values()) late += v;
  let dead = 0;
  for (const v of m.deadLetters().values()) dead += v;
  const rate = (d: number): string => {
    const r = (d * 1000) / Math.max(1, dtMs);
    return r >= 1e6 ? (r / 1e6).toFixed(1) + 'M' : r >= 1e3 ? (r / 1e3).toFixed(1) + 'k' : r.toFixed(0);
  };
  // A watermark no Date can hold (a record with an absurd timestamp) must not throw here.
  const wms = watermarksText(m);
  const ck = m.lastCheckpointAt === null ? 'none' : `${Math.round((now - m.lastCheckpointAt) / 1000)}s ago`;
  const text = `in ${rate(totalIn - prevIn)}/s  out ${rate(totalOut - prevOut)}/s  wm [${wms}]  open ${state}  late ${late}  dead ${dead}  ckpt ${ck}`;
  return { text, totalIn, totalOut };
}
