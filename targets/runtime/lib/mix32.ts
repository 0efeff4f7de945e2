// murmur3's 32-bit finalizer: spreads the bits of a 32-bit value, so hashes built from it (the
// HyperLogLog registers of APPROX_COUNT_DISTINCT, the key → worker mapping of --workers) do
// not cluster on values that differ only in a few bits.

/** The finalizer (fmix32): a 32-bit value in, an unsigned 32-bit value out. */
export function mix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
