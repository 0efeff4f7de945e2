// The case matrix of the Flink differential test and each case's SQL for both engines: window
// aggregates (TUMBLE / HOP / CUMULATE / SESSION with 0-2 keys and watermark delays 0 and 2 s, COUNT,
// COUNT DISTINCT, SUM, AVG, MIN, MAX over INT, BIGINT, DOUBLE, DECIMAL and STRING) and interval
// joins. The query text is the same for Flink and pipec (pipec accepts Flink's window TVF form);
// only the DDL around it differs. EMIT CHANGES runs reuse a window case's Flink rows: the final
// value of each upsert key must be the row Flink emits when the window closes.
import { DAY, T0, ndjson, prng, seedEvents, tsText, type Event } from './gen.ts';

export const SEEDS = 20;

export type Kind = 'tumble' | 'hop' | 'cumulate' | 'session';

/** An output column and what it computes (the comparison uses it to classify differences). */
export interface Col {
  name: string;
  /** Flink's result type, as the sink table declares it. */
  flinkType: string;
  agg?: 'count' | 'count_distinct' | 'sum' | 'avg' | 'min' | 'max';
  /** The input column's type for aggregates. */
  over?: 'INT' | 'BIGINT' | 'DOUBLE' | 'DECIMAL' | 'STRING';
}

export interface Case {
  id: string;
  /** Source name → NDJSON text (all seeds). */
  inputs: Record<string, string>;
  /** Flink: source DDL columns per source (file path filled in by the test). */
  flinkSources: Record<string, string>;
  /** pipec: source column lists (same columns and WATERMARK). */
  pipecSources: Record<string, string>;
  query: string;
  /** pipec's text where it differs from Flink's (see the SESSION note in windowCase). */
  pipecQuery?: string;
  cols: Col[];
  /** Columns that identify a row (group keys + window bounds); empty = compare whole rows. */
  key: string[];
  /** pipec EMIT clause and late handling appended to the view. */
  emitClause: string;
  /** For EMIT CHANGES runs: the window case whose Flink rows are the expected final states. */
  flinkOf?: string;
}

const TYPES: [string, Col['over'], string][] = [
  ['i', 'INT', 'INT'],
  ['b', 'BIGINT', 'BIGINT'],
  ['d', 'DOUBLE', 'DOUBLE'],
  ['m', 'DECIMAL', 'DECIMAL(10, 2)'],
  ['s', 'STRING', 'STRING'],
];

/** Flink's result types: SUM/AVG keep INT/BIGINT/DOUBLE; DECIMAL(10,2) sums to (38,2), averages to (38,6). */
function aggCols(): { cols: Col[]; select: string[] } {
  const cols: Col[] = [{ name: 'c', flinkType: 'BIGINT', agg: 'count' }];
  const select = ['COUNT(*) AS c'];
  for (const [x, over, type] of TYPES) {
    const add = (name: string, agg: Col['agg'], expr: string, flinkType: string): void => {
      cols.push({ name, flinkType, agg, over });
      select.push(`${expr} AS ${name}`);
    };
    add(`cnt_${x}`, 'count', `COUNT(${x})`, 'BIGINT');
    add(`cd_${x}`, 'count_distinct', `COUNT(DISTINCT ${x})`, 'BIGINT');
    if (over !== 'STRING') {
      add(`sum_${x}`, 'sum', `SUM(${x})`, over === 'DECIMAL' ? 'DECIMAL(38, 2)' : type);
      add(`avg_${x}`, 'avg', `AVG(${x})`, over === 'DECIMAL' ? 'DECIMAL(38, 6)' : type);
    }
    add(`min_${x}`, 'min', `MIN(${x})`, type);
    add(`max_${x}`, 'max', `MAX(${x})`, type);
  }
  return { cols, select };
}

const EVENT_COLS = 'ts TIMESTAMP(3), k1 STRING, k2 INT, i INT, b BIGINT, d DOUBLE, m DECIMAL(10, 2), s STRING';
const wmClause = (col: string, delayMs: number): string => `WATERMARK FOR ${col} AS ${col} - INTERVAL '${delayMs / 1000}' SECOND`;

const SHAPES: Record<Kind, { tvf: (keys: string[]) => string; sliceMs: number; gapMs: number }> = {
  tumble: { tvf: () => `TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '5' SECOND)`, sliceMs: 5000, gapMs: 0 },
  hop: { tvf: () => `HOP(TABLE src, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '6' SECOND)`, sliceMs: 2000, gapMs: 0 },
  cumulate: { tvf: () => `CUMULATE(TABLE src, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '6' SECOND)`, sliceMs: 2000, gapMs: 0 },
  session: {
    tvf: (keys) => `SESSION(TABLE src${keys.length ? ` PARTITION BY ${keys.length > 1 ? `(${keys.join(', ')})` : keys[0]}` : ''}, DESCRIPTOR(ts), INTERVAL '3' SECOND)`,
    sliceMs: 0,
    gapMs: 3000,
  },
};

function windowCase(kind: Kind, keys: string[], delayMs: number): Case {
  const shape = SHAPES[kind];
  const events: Event[] = [];
  for (let j = 0; j < SEEDS; j++) events.push(...seedEvents(1000 * (keys.length + 1) + j + delayMs, T0 + j * DAY, { sliceMs: shape.sliceMs, gapMs: shape.gapMs, delayMs }, j % 4 === 3));
  const { cols, select } = aggCols();
  const keyCols: Col[] = keys.map((k) => ({ name: k, flinkType: k === 'k1' ? 'STRING' : 'INT' }));
  const all: Col[] = [{ name: 'window_start', flinkType: 'TIMESTAMP(3)' }, { name: 'window_end', flinkType: 'TIMESTAMP(3)' }, ...keyCols, ...cols];
  const groupBy = ['window_start', 'window_end', ...keys].join(', ');
  const query = `SELECT ${['window_start', 'window_end', ...keys, ...select].join(', ')} FROM TABLE(${shape.tvf(keys)}) GROUP BY ${groupBy}`;
  const srcCols = `${EVENT_COLS}, ${wmClause('ts', delayMs)}`;
  // Flink needs parentheses around several PARTITION BY columns inside SESSION(...); pipec's
  // parser takes them without (it does not accept the parenthesised list yet).
  const pipecQuery = kind === 'session' && keys.length > 1 ? query.replace(`PARTITION BY (${keys.join(', ')})`, `PARTITION BY ${keys.join(', ')}`) : undefined;
  return {
    id: `${kind}_k${keys.length}_d${delayMs}`,
    inputs: { src: ndjson(events) },
    flinkSources: { src: srcCols },
    pipecSources: { src: srcCols },
    query,
    ...(pipecQuery !== undefined ? { pipecQuery } : {}),
    cols: all,
    key: ['window_start', 'window_end', ...keys],
    emitClause: 'EMIT ON WINDOW CLOSE ON LATE DROP',
  };
}

/** Orders and payments per seed, each side out of order within the 2 s delay (no row is late). */
function joinCase(): Case {
  const orders: string[] = [];
  const pays: string[] = [];
  for (let j = 0; j < SEEDS; j++) {
    const r = prng(7000 + j);
    const base = T0 + j * DAY;
    const n = 50 + Math.floor(r() * 450);
    const side = (out: string[], extra: () => Record<string, unknown>): void => {
      const rows: { t: number; at: number; row: Record<string, unknown> }[] = [];
      for (let x = 0; x < n; x++) {
        const t = base + x * 40 + Math.floor(r() * 30);
        rows.push({ t, at: t + Math.floor(r() * 1900), row: { id: r() < 0.05 ? null : Math.floor(r() * 40), ...extra() } });
      }
      rows.sort((a, b) => a.at - b.at);
      for (const x of rows) out.push(JSON.stringify({ ts: tsText(x.t), ...x.row }));
    };
    side(orders, () => ({ v: r() < 0.1 ? null : Math.floor(r() * 100) }));
    side(pays, () => ({ w: r() < 0.1 ? null : ['p', 'q', '\u{10400}'][Math.floor(r() * 3)] }));
  }
  const o = `ts TIMESTAMP(3), id INT, v INT, ${wmClause('ts', 2000)}`;
  const p = `ts TIMESTAMP(3), id INT, w STRING, ${wmClause('ts', 2000)}`;
  return {
    id: 'interval_join',
    inputs: { o: orders.join('\n') + '\n', p: pays.join('\n') + '\n' },
    flinkSources: { o, p },
    pipecSources: { o, p },
    // CAST: Flink refuses a sink row with two rowtime attributes; the cast makes them plain timestamps.
    query:
      'SELECT o.id, o.v, p.w, CAST(o.ts AS TIMESTAMP(3)) AS o_ts, CAST(p.ts AS TIMESTAMP(3)) AS p_ts FROM o JOIN p ' +
      "ON o.id = p.id AND p.ts BETWEEN o.ts - INTERVAL '1' SECOND AND o.ts + INTERVAL '3' SECOND",
    cols: [
      { name: 'id', flinkType: 'INT' },
      { name: 'v', flinkType: 'INT' },
      { name: 'w', flinkType: 'STRING' },
      { name: 'o_ts', flinkType: 'TIMESTAMP(3)' },
      { name: 'p_ts', flinkType: 'TIMESTAMP(3)' },
    ],
    key: [],
    emitClause: 'ON LATE DROP',
  };
}

export function allCases(): Case[] {
  const cases: Case[] = [];
  for (const kind of ['tumble', 'hop', 'cumulate', 'session'] as Kind[]) {
    // 0-2 keys and both delays, but not every pairing: each Flink pipeline costs seconds of
    // planning and a thread, and four per kind cover both delays with 2 keys (the hardest case).
    for (const [keys, delay] of [[[], 0], [['k1'], 2000], [['k1', 'k2'], 0], [['k1', 'k2'], 2000]] as [string[], number][]) cases.push(windowCase(kind, keys, delay));
  }
  cases.push(joinCase());
  // EMIT CHANGES: the final upsert per key equals the closed window's row (one key, both delays).
  // Not SESSION: pipec's EMIT CHANGES rows of sessions merged away are not retracted (documented
  // under "Streaming"), so its upserts have no final state to compare (see CONTEXT.md).
  for (const kind of ['tumble', 'hop', 'cumulate'] as Kind[]) {
    for (const id of [`${kind}_k0_d0`, `${kind}_k1_d2000`]) {
      const base = cases.find((c) => c.id === id)!;
      cases.push({ ...base, id: `${base.id}_changes`, emitClause: 'EMIT CHANGES ON LATE DROP', flinkOf: base.id });
    }
  }
  return cases;
}
