// Seeded random input for the Flink differential test: events out of order (some later than the
// watermark delay), equal timestamps, NULLs in every value and key column, values near the edges
// of INT/BIGINT, strings outside the Basic Multilingual Plane, and events placed exactly on the
// boundaries that decide lateness (at the watermark, at a window's end and at its end - 1 ms).
// Seeds are laid one day apart in one file per case: every event of seed j+1 is later than all of
// seed j's, so seed j's windows close exactly as if its input ended there, and one source (one
// Flink pipeline, one pipec run) carries all 20 seeds.

export const T0 = Date.UTC(2024, 0, 1);
export const DAY = 86_400_000;

export function prng(seed: number): () => number {
  let s = (seed * 2654435761) >>> 0 || 1;
  return () => {
    // xorshift32: small, fast, the same sequence everywhere.
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
}

/** Flink's and pipec's TIMESTAMP(3) text: `2024-01-01 00:00:05.123`. */
export const tsText = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');

export interface Event {
  ts: number;
  k1: string | null;
  k2: number | null;
  i: number | null;
  b: string | null;
  d: number | null;
  m: string | null;
  s: string | null;
}

const STRINGS = ['', 'a', 'b', 'ab', 'B', 'é', 'z', '\u{FFFD}', '\u{10400}', '\u{1F600}x', 'Ω', 'a\u{10400}', 'zz'];
const INT_EDGE = [2147483647, -2147483648, 2147483000, -2147483000];
const BIG_EDGE = ['9223372036854775807', '-9223372036854775808', '9223372036854775000', '-9223372036854775000'];

function value(r: () => number, edges: boolean): Omit<Event, 'ts'> {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const nul = (): boolean => r() < 0.08;
  const edge = edges && r() < 0.05;
  return {
    k1: nul() ? null : pick(['x', 'y', 'z']),
    k2: nul() ? null : Math.floor(r() * 3),
    i: nul() ? null : edge ? pick(INT_EDGE) : Math.floor(r() * 2001) - 1000,
    b: nul() ? null : edge ? pick(BIG_EDGE) : String(Math.floor(r() * 2_000_001) - 1_000_000),
    // Quarters below 2^20: every sum is exact whatever the order (no rounding to compare).
    d: nul() ? null : (Math.floor(r() * 8001) - 4000) / 4,
    m: nul() ? null : ((Math.floor(r() * 2_000_001) - 1_000_000) / 100).toFixed(2),
    s: nul() ? null : pick(STRINGS),
  };
}

export interface Shape {
  /** Window ends are multiples of this (the slice / step); 0 for sessions (gap-driven). */
  sliceMs: number;
  /** The gap of SESSION windows (boundary events are placed at last + gap - 1 / + gap). */
  gapMs: number;
  delayMs: number;
}

/** One seed's events in arrival order, starting at `base`. */
export function seedEvents(seed: number, base: number, shape: Shape, edges: boolean): Event[] {
  const r = prng(seed);
  const n = 50 + Math.floor(r() * 1951);
  const stepMs = 5 + Math.floor(r() * 60);
  const disorder = Math.floor(r() * 4000);
  const out: Event[] = [];
  let max = Number.NEGATIVE_INFINITY;
  for (let j = 0; j < n; j++) {
    const nominal = base + j * stepMs;
    let ts = nominal - Math.floor(r() * disorder);
    const x = r();
    const wm = max - shape.delayMs;
    if (j > 0 && x < 0.06) ts = out[out.length - 1]!.ts; // equal timestamps
    else if (j > 0 && x < 0.1) ts = wm; // at the watermark
    else if (j > 0 && x < 0.16 && shape.sliceMs > 0) {
      // The window boundary around the watermark: end - 1, end, end + 1 of the window it is in.
      const end = Math.floor((wm - base) / shape.sliceMs) * shape.sliceMs + base;
      ts = end + Math.floor(r() * 3) - 1;
    } else if (j > 0 && x < 0.16) ts = out[out.length - 1]!.ts + shape.gapMs - 1 + Math.floor(r() * 3) - 1;
    else if (j > 0 && x < 0.2 && shape.sliceMs > 0) {
      // The pair that decides the boundary rule: an event that moves the watermark to exactly
      // end - 1 of the next window end, then an event at end - 1 (late in Flink: end - 1 <= watermark).
      const end = (Math.floor((wm - base) / shape.sliceMs) + 1) * shape.sliceMs + base;
      const pusher = end - 1 + shape.delayMs;
      if (pusher > max) {
        max = pusher;
        out.push({ ts: pusher, ...value(r, edges) });
        j++;
      }
      ts = end - 1;
    }
    if (ts < base) ts = base;
    if (ts > max) max = ts;
    out.push({ ts, ...value(r, edges) });
  }
  return out;
}

/** NDJSON of events for both engines: timestamps as SQL text, BIGINT and DECIMAL as exact strings. */
export function ndjson(events: Event[]): string {
  return events.map((e) => JSON.stringify({ ...e, ts: tsText(e.ts) })).join('\n') + '\n';
}
