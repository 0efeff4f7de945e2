// A seeded Nexmark-style bid stream as NDJSON: ~1 bid per ms of event time, up to 400 ms out of
// order (inside the specs' 1 s watermark delay, so no bid is late and every engine sees the same
// rows), 10,000 auctions, 100,000 bidders of which 1,000 hot ones place a fifth of the bids.
// Beside it the auctions (the interval join's other side): auction i opens at an even share of
// the bids' time span, so a bid meets the auctions opened in the 10 s before it; and a file of
// distinct keys for the memory figure.
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { prng } from '../../support/prng.ts';

export const BASE_MS = Date.UTC(2026, 0, 1);
export const AUCTIONS = 10_000;
const CHANNELS = ['apple', 'google', 'facebook', 'baidu'];

/** NDJSON lines to `file` from `line(i)` for i < n, written in ~1 MiB chunks. */
async function writeLines(file: string, n: number, line: (i: number) => string): Promise<void> {
  const out = createWriteStream(file);
  let buf = '';
  for (let i = 0; i < n; i++) {
    buf += line(i) + '\n';
    if (buf.length > 1 << 20) {
      if (!out.write(buf)) await once(out, 'drain');
      buf = '';
    }
  }
  out.end(buf);
  await once(out, 'finish');
}

const two = (n: number): string => String(n).padStart(2, '0');
function sqlTime(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}.${String(d.getUTCMilliseconds()).padStart(3, '0')}`;
}

/** Writes `n` bids to `file`; the same seed and n give the same bytes. */
export async function writeBids(file: string, n: number, seed = 42): Promise<void> {
  const rnd = prng(seed);
  await writeLines(file, n, (i) => {
    const hot = rnd() < 0.2;
    return JSON.stringify({
      auction: Math.floor(rnd() * AUCTIONS),
      bidder: hot ? Math.floor(rnd() * 1_000) : Math.floor(rnd() * 100_000),
      price: 100 + Math.floor(rnd() * 100_000),
      channel: CHANNELS[Math.floor(rnd() * CHANNELS.length)],
      url: `https://www.nexmark.com/item.htm?query=${Math.floor(rnd() * 1000)}`,
      date_time: sqlTime(BASE_MS + i - Math.floor(rnd() * 400)),
      extra: '',
    });
  });
}

/**
 * Writes the AUCTIONS auctions the bids of a stream of `bids` events refer to: auction i opens at
 * BASE_MS + i × bids / AUCTIONS ms (± 400 ms), in id order, lasting 10 minutes.
 */
export async function writeAuctions(file: string, bids: number, seed = 7): Promise<void> {
  const rnd = prng(seed);
  await writeLines(file, AUCTIONS, (i) => {
    const opens = BASE_MS + Math.floor((i * bids) / AUCTIONS) + Math.floor(rnd() * 400);
    return JSON.stringify({
      id: i,
      item_name: `item-${i}`,
      seller: Math.floor(rnd() * 10_000),
      category: 10 + Math.floor(rnd() * 5),
      initial_bid: 100 + Math.floor(rnd() * 1_000),
      date_time: sqlTime(opens),
      expires: sqlTime(opens + 600_000),
    });
  });
}

/** `n` events with n distinct keys `k`, all in the first second of BASE_MS (one window). */
export async function writeDistinctKeys(file: string, n: number): Promise<void> {
  await writeLines(file, n, (i) => JSON.stringify({ k: i, v: i % 1000, ts: sqlTime(BASE_MS + (i % 1000)) }));
}
