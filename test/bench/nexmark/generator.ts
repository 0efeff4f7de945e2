// A seeded Nexmark-style bid stream as NDJSON: ~1 bid per ms of event time, up to 400 ms out of
// order (inside the specs' 1 s watermark delay, so no bid is late and every engine sees the same
// rows), 10,000 auctions, 100,000 bidders of which 1,000 hot ones place a fifth of the bids.
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { prng } from '../../support/prng.ts';

export const BASE_MS = Date.UTC(2026, 0, 1);
const CHANNELS = ['apple', 'google', 'facebook', 'baidu'];

const two = (n: number): string => String(n).padStart(2, '0');
function sqlTime(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}.${String(d.getUTCMilliseconds()).padStart(3, '0')}`;
}

/** Writes `n` bids to `file`; the same seed and n give the same bytes. */
export async function writeBids(file: string, n: number, seed = 42): Promise<void> {
  const rnd = prng(seed);
  const out = createWriteStream(file);
  let buf = '';
  for (let i = 0; i < n; i++) {
    const hot = rnd() < 0.2;
    const bid = {
      auction: Math.floor(rnd() * 10_000),
      bidder: hot ? Math.floor(rnd() * 1_000) : Math.floor(rnd() * 100_000),
      price: 100 + Math.floor(rnd() * 100_000),
      channel: CHANNELS[Math.floor(rnd() * CHANNELS.length)],
      url: `https://www.nexmark.com/item.htm?query=${Math.floor(rnd() * 1000)}`,
      date_time: sqlTime(BASE_MS + i - Math.floor(rnd() * 400)),
      extra: '',
    };
    buf += JSON.stringify(bid) + '\n';
    if (buf.length > 1 << 20) {
      if (!out.write(buf)) await once(out, 'drain');
      buf = '';
    }
  }
  out.end(buf);
  await once(out, 'finish');
}
