// The case matrix of the Flink differential test and each case's SQL for both engines: window
// aggregates (TUMBLE / HOP / CUMULATE / SESSION with 0-2 keys and watermark delays 0 and 2 s, COUNT,
// COUNT DISTINCT, SUM, AVG, MIN, MAX over INT, BIGINT, DOUBLE, DECIMAL and STRING) and interval
// joins. Each case is one pipec spec (engines.ts): `pipec run` runs it, and Flink runs the script
// `pipec build --target flink` makes of it. EMIT CHANGES runs reuse a window case's Flink rows (the
// target leaves an EMIT CHANGES view out): the final value of each upsert key must be the row
// Flink emits when the window closes.
import { DAY, T0, ndjson, prng, seedEvents, tsText, type Event } from './gen.ts';

export const SEEDS = 20;

export type Kind = 'tumble' | 'hop' | 'cumulate' | 'session';

/** An output column and what it computes (the comparison uses it to classify differences). */
export interface Col {
  name: string;
  /** The column's Flink type (how its values are normalized for the comparison). */
  flinkType: string;
  agg?: 'count' | 'count_distinct' | 'sum' | 'avg' | 'min' | 'max';
  /** The input column's type for aggregates. */
  over?: 'INT' | 'BIGINT' | 'DOUBLE' | 'DECIMAL' | 'STRING';
}

export interface Case {
  id: string;
  /** Source name → NDJSON text (all seeds). */
  inputs: Record<string, string>;
  /** Source name → its column list with the WATERMARK clause (a file source of the spec). */
  sources: Record<string, string>;
  query: string;
  /** Views over the sources (name → SELECT), the same text for both engines; the query may read them. */
  views?: Record<string, string>;
  cols: Col[];
  /** Columns that identify a row (group keys + window bounds); empty = compare whole rows. */
  key: string[];
  /** pipec EMIT clause and late handling appended to the view. */
  emitClause: string;
  /** For EMIT CHANGES runs: the window case whose Flink rows are the expected final states. */
  flinkOf?: string;
  /**
   * The rows pipec must send to the `late_rows` sink (`ON LATE TO late_rows`), as `lateRowText`
   * gives them; decided by the generator, not read from either engine.
   */
  expectedLate?: string[];
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
  return {
    id: `${kind}_k${keys.length}_d${delayMs}`,
    inputs: { src: ndjson(events) },
    sources: { src: srcCols },
    query,
    cols: all,
    key: ['window_start', 'window_end', ...keys],
    emitClause: 'EMIT ON WINDOW CLOSE ON LATE DROP',
  };
}

/**
 * Orders and payments per seed, both sides in ONE source file split by two views, so both
 * engines read them in one order under one watermark (with two sources, which rows are late
 * depends on how an engine interleaves its reads). Most rows are out of order within the 2 s
 * delay (on time); ~3 % of each side are very late, 20-23 s behind the watermark. pipec sends
 * those to `ON LATE TO` (docs/language-decisions.md, "Late rows of interval joins"); Flink SQL
 * joins a late row with what it still caches, and 20 s behind a 1 s/3 s join nothing is left
 * (its cleanup timers fire by then, with room to spare for its inputs' watermarks to lag), nor
 * does it cache the row: it joins nothing, as in pipec. `expectedLate` lists those rows.
 */
function joinCase(): Case {
  const lines: string[] = [];
  const late: string[] = [];
  for (let j = 0; j < SEEDS; j++) {
    const r = prng(7000 + j);
    const base = T0 + j * DAY;
    const n = 600 + Math.floor(r() * 500);
    const rows: { t: number; at: number; row: Record<string, unknown> }[] = [];
    const side = (name: 'o' | 'p', extra: () => Record<string, unknown>): void => {
      for (let x = 0; x < n; x++) {
        const t = base + x * 40 + Math.floor(r() * 30);
        rows.push({ t, at: t + Math.floor(r() * 1900), row: { side: name, id: r() < 0.05 ? null : Math.floor(r() * 40), ...extra() } });
      }
    };
    side('o', () => ({ v: r() < 0.1 ? null : Math.floor(r() * 100) }));
    side('p', () => ({ w: r() < 0.1 ? null : ['p', 'q', '\u{10400}'][Math.floor(r() * 3)] }));
    rows.sort((a, b) => a.at - b.at);
    // Every row arrives at most 1.9 s after its time, so max(ts) <= at and ts >= max - 1.9 s: on time.
    let max = Number.NEGATIVE_INFINITY;
    for (const x of rows) {
      let t = x.t;
      if (r() < 0.03 && max - 25_000 > base) {
        t = max - 2000 - 20_000 - Math.floor(r() * 3000);
        const value = x.row['side'] === 'o' ? x.row['v'] : x.row['w'];
        // A NULL key never joins: the join's input drops it before lateness is asked (as Flink's).
        if (x.row['id'] !== null) late.push([x.row['side'], tsText(t), x.row['id'], value].map((v) => String(v ?? null)).join('|'));
      }
      if (t > max) max = t;
      lines.push(JSON.stringify({ ts: tsText(t), ...x.row }));
    }
  }
  const ev = `ts TIMESTAMP(3), side STRING, id INT, v INT, w STRING, ${wmClause('ts', 2000)}`;
  return {
    id: 'interval_join',
    inputs: { ev: lines.join('\n') + '\n' },
    sources: { ev },
    // Distinct column names on the two sides: pipec's late rows carry the join's columns by name.
    views: { o: "SELECT ts AS o_ts, id AS oid, v FROM ev WHERE side = 'o'", p: "SELECT ts AS p_ts, id AS pid, w FROM ev WHERE side = 'p'" },
    // CAST: plain timestamps out of the join (Flink takes one rowtime attribute per sink row; the Flink target casts at the INSERT too).
    query:
      'SELECT o.oid AS id, p.pid, o.v, p.w, CAST(o.o_ts AS TIMESTAMP(3)) AS o_ts, CAST(p.p_ts AS TIMESTAMP(3)) AS p_ts FROM o JOIN p ' +
      "ON o.oid = p.pid AND p.p_ts BETWEEN o.o_ts - INTERVAL '1' SECOND AND o.o_ts + INTERVAL '3' SECOND",
    cols: [
      { name: 'id', flinkType: 'INT' },
      { name: 'pid', flinkType: 'INT' },
      { name: 'v', flinkType: 'INT' },
      { name: 'w', flinkType: 'STRING' },
      { name: 'o_ts', flinkType: 'TIMESTAMP(3)' },
      { name: 'p_ts', flinkType: 'TIMESTAMP(3)' },
    ],
    key: [],
    emitClause: 'ON LATE TO late_rows',
    expectedLate: late,
  };
}

/** A row of the join's ON LATE TO sink as `side|ts|id|value`, the form of `Case.expectedLate`. */
export function lateRowText(l: Record<string, unknown>): string {
  const left = l['late_side'] === 'left';
  const vals = left ? ['o', l['o_ts'], l['oid'], l['v']] : ['p', l['p_ts'], l['pid'], l['w']];
  return vals.map((v) => String(v ?? null)).join('|');
}

export function allCases(): Case[] {
  const cases: Case[] = [];
  for (const kind of ['tumble', 'hop', 'cumulate', 'session'] as Kind[]) {
    // 0-2 keys and both delays, but not every pairing: each Flink pipeline costs seconds of
    // planning and a thread, and four per kind cover both delays with 2 keys (the hardest case).
    for (const [keys, delay] of [[[], 0], [['k1'], 2000], [['k1', 'k2'], 0], [['k1', 'k2'], 2000]] as [string[], number][]) cases.push(windowCase(kind, keys, delay));
  }
  cases.push(joinCase());
  // EMIT CHANGES: the final upsert per key equals the closed window's row. SESSION too: its
  // changelog deletes the rows of sessions merged away (Flink has no early firing for sessions,
  // so its closed sessions are the reference); with 2 keys and a delay, sessions merge most.
  for (const kind of ['tumble', 'hop', 'cumulate', 'session'] as Kind[]) {
    const ids = kind === 'session' ? ['session_k0_d0', 'session_k1_d2000', 'session_k2_d2000'] : [`${kind}_k0_d0`, `${kind}_k1_d2000`];
    for (const id of ids) {
      const base = cases.find((c) => c.id === id)!;
      cases.push({ ...base, id: `${base.id}_changes`, emitClause: 'EMIT CHANGES ON LATE DROP', flinkOf: base.id });
    }
  }
  return cases;
}
