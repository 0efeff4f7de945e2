// The event stream of the end-to-end Kafka benchmark: N orders, every field a function of the
// event's index (so a topic can be checked against it byte for byte and reused across runs),
// dealt to partitions by customer, event times increasing over many minutes. Also the count of
// window rows the benchmark pipeline must have emitted once it has read all of them, computed
// here independently of the runtime.

export const PARTITIONS = 4;
export const CUSTOMERS = 1000;
/** Event i happens at BASE + i * STEP_MS: 1M events span 100 minutes (~10,000 per minute). */
export const BASE_MS = Date.UTC(2026, 0, 1);
export const STEP_MS = 6;
export const WINDOW_MS = 60_000;
/** The pipeline's watermark delay (`order_ts - INTERVAL '5' SECOND`). */
export const DELAY_MS = 5_000;

export interface Order {
  orderId: string;
  customerId: number;
  /** Amount in cents (DECIMAL(12, 2) on the pipeline side). */
  cents: number;
  ts: number;
}

/** Multiplicative hashing: customers and amounts look random but depend only on i. */
const mix = (i: number, salt: number): number => Math.imul(i ^ salt, 0x9e3779b1) >>> 0;

export function order(i: number): Order {
  return { orderId: `o-${i}`, customerId: mix(i, 0x5bd1e995) % CUSTOMERS, cents: mix(i, 0x27d4eb2f) % 100_000, ts: BASE_MS + i * STEP_MS };
}

export const partitionOf = (o: Order): number => o.customerId % PARTITIONS;
export const keyOf = (o: Order): string => String(o.customerId);

/** The JSON value of an order as produced: amount as a JSON number with up to two decimals, time as epoch ms. */
export function orderJson(o: Order): string {
  return `{"order_id":"${o.orderId}","customer_id":${o.customerId},"amount":${o.cents / 100},"order_ts":${o.ts}}`;
}

/** Event indexes of each partition in offset order: partition p's offset k holds event layout[p][k]. */
export function layout(n: number): Int32Array[] {
  const counts = new Array<number>(PARTITIONS).fill(0);
  for (let i = 0; i < n; i++) counts[partitionOf(order(i))]!++;
  const parts = counts.map((c) => new Int32Array(c));
  const fill = new Array<number>(PARTITIONS).fill(0);
  for (let i = 0; i < n; i++) {
    const p = partitionOf(order(i));
    parts[p]![fill[p]!++] = i;
  }
  return parts;
}

/**
 * Window rows an EMIT ON WINDOW CLOSE TUMBLE(1 minute) GROUP BY customer has emitted after
 * reading every event: the distinct (customer, window) pairs of windows ending at or before
 * the watermark, which is the smallest per-partition maximum event time minus the delay.
 */
export function expectedWindowRows(parts: Int32Array[]): number {
  let wm = Number.POSITIVE_INFINITY;
  for (const p of parts) if (p.length > 0) wm = Math.min(wm, order(p[p.length - 1]!).ts - DELAY_MS);
  const seen = new Set<number>();
  for (const p of parts) {
    for (const i of p) {
      const o = order(i);
      const start = o.ts - (o.ts % WINDOW_MS);
      if (start + WINDOW_MS <= wm) seen.add((start / WINDOW_MS) * CUSTOMERS + o.customerId);
    }
  }
  return seen.size;
}
