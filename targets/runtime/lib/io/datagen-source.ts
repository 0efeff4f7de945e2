// The `datagen` source: reproducible synthetic rows. Every value is a pure function of
// (seed, column, row index), so a run resumed from a checkpoint regenerates exactly the rows
// an uninterrupted run would have. Row i goes to partition i mod `partitions`.
//
// Per column (`fields.<col>.*`): kind = sequence | random | choice; min/max bound numbers,
// timestamps and string lengths; values is a comma-separated list for choice. Defaults:
// numbers random in [0, 1000]; strings random of length 8; a TIMESTAMP is a sequence starting
// at min (default 2024-01-01 00:00:00) stepping `step` ms (default 1000 / rows_per_second, or
// 1 when unthrottled).
import { readDecimal, readTimestamp, type Int64 } from '../values.ts';
import type { ColumnDef, RunningSource, SourceDef, SourceSink } from './source-types.ts';
import { datagenSourceConfig } from './resolved-configs.ts';

type Gen = (i: number) => unknown;

/** A datagen option that cannot be used; the runner reports it and does not start. */
export class DatagenOptionError extends Error {}


const DURATION_RE = /^\s*(-?\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hours?|d|days?)?\s*$/i;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60000, h: 3600000, d: 86400000 };

/** '30 ms', '5s', '1 min', or a plain number of milliseconds. */
export function parseDurationMs(text: string): number | null {
  const m = DURATION_RE.exec(text);
  if (!m) return null;
  const u = (m[2] ?? 'ms').toLowerCase();
  const unit = u.startsWith('mi') && u !== 'min' && u !== 'mins' && u !== 'minute' && u !== 'minutes' ? 'ms' : u === 'ms' ? 'ms' : u[0]!;
  return Number(m[1]) * UNIT_MS[unit]!;
}

function num(name: string, key: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const v = Number(text);
  if (!Number.isFinite(v)) throw new DatagenOptionError(`option ${key} of source '${name}' must be a number, got '${text}'`);
  return v;
}

/** A uniform number in [0, 1) from three integers (a counter-based generator, seekable). */
export function unitRandom(seed: number, col: number, i: number): number {
  let h = (seed ^ Math.imul(col + 1, 0x9e3779b9)) >>> 0;
  h = Math.imul(h ^ (i & 0xffffffff), 0x85ebca6b) ^ Math.imul(Math.floor(i / 4294967296), 0xc2b2ae35);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 12;
  h = Math.imul(h, 0x297a2d39);
  h ^= h >>> 15;
  return (h >>> 0) / 4294967296;
}

export class DatagenSource implements RunningSource {
  readonly bounded: boolean;
  private next = 0;
  private readonly total: number;
  private readonly rps: number;
  private readonly parts: number[] = [];
  private readonly gens: Gen[];
  private startedAt = -1;
  private startedFrom = 0;
  private doneMarked = false;

  constructor(
    readonly def: SourceDef,
    private readonly out: SourceSink,
  ) {
    // Settings as the compiler resolved them, the per-column generators' included.
    const cfg = datagenSourceConfig(def);
    this.total = cfg.totalRows ?? Number.POSITIVE_INFINITY;
    this.bounded = Number.isFinite(this.total);
    this.rps = cfg.rowsPerSecond;
    const seed = cfg.seed >>> 0;
    const nParts = Math.max(1, cfg.partitions);
    for (let i = 0; i < nParts; i++) this.parts.push(this.out.partitionAdded(`${def.name}-${i}`));
    this.gens = def.columns.map((c, idx) => makeGen(c, idx, seed, cfg.fields[c.name] ?? {}, this.rps, def.name));
  }

  get finished(): boolean {
    return this.next >= this.total;
  }

  async poll(budget: number): Promise<number> {
    const now = Date.now();
    if (this.startedAt < 0) {
      this.startedAt = now;
      this.startedFrom = this.next;
    }
    let limit = Math.min(this.total, this.next + budget * this.parts.length);
    if (this.rps > 0) limit = Math.min(limit, this.startedFrom + Math.floor(((now - this.startedAt) * this.rps) / 1000) + 1);
    const n0 = this.next;
    const P = this.parts.length;
    const gens = this.gens;
    for (let i = this.next; i < limit; i++) {
      const row = new Array(gens.length);
      for (let c = 0; c < gens.length; c++) row[c] = gens[c]!(i);
      this.out.row(this.parts[i % P]!, row);
    }
    this.next = Math.max(this.next, limit);
    if (this.finished && !this.doneMarked) {
      this.doneMarked = true;
      for (const p of this.parts) this.out.partitionDone(p);
    }
    return this.next - n0;
  }

  position(): unknown {
    return { next: this.next };
  }

  seek(pos: unknown): void {
    this.next = (pos as { next: number }).next;
  }

  async close(): Promise<void> {}
}

function makeGen(c: ColumnDef, col: number, seed: number, field: Record<string, string>, rps: number, source: string): Gen {
  const opt = (k: string): string | undefined => (Object.hasOwn(field, k) ? field[k] : undefined);
  const kind = opt('kind') ?? (c.kind === 'timestamp' ? 'sequence' : 'random');
  if (kind !== 'sequence' && kind !== 'random' && kind !== 'choice') throw new DatagenOptionError(`fields.${c.name}.kind of source '${source}' must be sequence, random or choice, got '${kind}'`);
  const time = (k: string, fallback: string): number => {
    const v = readTimestamp(opt(k) ?? fallback);
    if (typeof v !== 'number') throw new DatagenOptionError(`fields.${c.name}.${k} of source '${source}' must be a timestamp, got '${opt(k)}'`);
    return v;
  };
  const n = (k: string, fallback: number): number => num(source, `fields.${c.name}.${k}`, opt(k), fallback);
  const rnd = (i: number): number => unitRandom(seed, col, i);
  if (kind === 'choice') {
    const values = (opt('values') ?? '').split(',').map((s) => s.trim());
    const conv = values.map((v) => convert(c, v));
    return (i) => conv[Math.floor(rnd(i) * conv.length)];
  }
  if (c.kind === 'timestamp' || c.kind === 'date') {
    const min = time('min', '2024-01-01 00:00:00');
    const stepText = opt('step');
    const step = stepText === undefined ? (rps > 0 ? Math.max(1, Math.round(1000 / rps)) : 1) : parseDurationMs(stepText);
    if (step === null) throw new DatagenOptionError(`fields.${c.name}.step of source '${source}' must be a duration such as '30 ms' or '1 s', got '${stepText}'`);
    const scale = c.kind === 'date' ? 86400000 : 1;
    if (kind === 'sequence') return (i) => Math.floor((min + i * step) / scale);
    const max = time('max', '2024-01-02 00:00:00');
    return (i) => Math.floor((min + Math.floor(rnd(i) * (max - min + 1))) / scale);
  }
  if (c.kind === 'string') {
    const minLen = n('min', n('length', 8));
    const maxLen = n('max', opt('length') !== undefined ? n('length', 8) : minLen);
    if (kind === 'sequence') return (i) => String(minLen + i);
    return (i) => {
      const len = minLen + Math.floor(rnd(i) * (maxLen - minLen + 1));
      let s = '';
      for (let k = 0; k < len; k++) s += ALNUM[Math.floor(unitRandom(seed + k + 1, col, i) * ALNUM.length)];
      return s;
    };
  }
  if (c.kind === 'boolean') return (i) => rnd(i) < 0.5;
  const min = n('min', 0);
  const max = n('max', 1000);
  const integral = c.kind === 'int' || c.kind === 'bigint';
  if (kind === 'sequence') return (i) => convertNum(c, min + i);
  if (integral) return (i) => min + Math.floor(rnd(i) * (max - min + 1));
  return (i) => convertNum(c, min + rnd(i) * (max - min));
}

const ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789';

function convertNum(c: ColumnDef, x: number): unknown {
  if (c.kind === 'decimal') return readDecimal(x.toFixed(c.scale ?? 0), 38, c.scale ?? 0) as Int64;
  if (c.kind === 'float') return Math.fround(x);
  return x;
}

function convert(c: ColumnDef, v: string): unknown {
  switch (c.kind) {
    case 'int':
    case 'bigint':
    case 'double':
    case 'float':
      return convertNum(c, Number(v));
    case 'decimal':
      return readDecimal(v, 38, c.scale ?? 0);
    case 'boolean':
      return v === 'true';
    case 'timestamp':
      return readTimestamp(v);
    default:
      return v;
  }
}
