// The key → worker mapping of `pipec run --workers N`: every worker computes the same 32-bit hash
// of a stateful operator's group key (`AggFns.keyOf`) and sends the row to worker hash mod N, so
// each key's state lives in exactly one worker (the hash partitioning a distributed engine's
// exchange does between subtasks). Equal keys hash equally whatever worker computes them; the
// hash only has to spread keys, not be stable across pipec versions (a checkpoint stores the
// keys, not where they lived, state-share.ts).

import { mix32 as mix } from '../mix32.ts';

const F64 = new Float64Array(1);
const U32 = new Uint32Array(F64.buffer);


/** FNV-1a over UTF-16 code units, then mixed. */
function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return mix(h);
}

export function keyHash(key: unknown): number {
  switch (typeof key) {
    case 'number':
      if (Number.isInteger(key) && key >= -0x80000000 && key <= 0x7fffffff) return mix(key | 0);
      // -0 and 0 are one group key (Map uses SameValueZero): hash them alike.
      F64[0] = key === 0 ? 0 : key;
      return mix(U32[0]! ^ mix(U32[1]!));
    case 'string':
      return hashString(key);
    case 'bigint':
      return hashString(key.toString());
    case 'boolean':
      return key ? 1 : 2;
    default:
      return 0;
  }
}

/** The worker (0 … n-1) that owns `key`. */
export const ownerOf = (key: unknown, n: number): number => keyHash(key) % n;
