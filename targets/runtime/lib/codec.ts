// JSON encoding of runtime state for checkpoints: BigInt, Set, Map, Uint8Array and the
// infinities survive the round trip (plain JSON.stringify would lose or reject them).

export function encodeState(v: unknown): unknown {
  if (typeof v === 'bigint') return { $b: v.toString() };
  if (typeof v === 'number') {
    if (Number.isFinite(v)) return v;
    return { $n: String(v) };
  }
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(encodeState);
  if (v instanceof Set) return { $s: [...v].map(encodeState) };
  if (v instanceof Map) return { $m: [...v].map(([k, x]) => [encodeState(k), encodeState(x)]) };
  if (v instanceof Uint8Array) return { $u: Buffer.from(v).toString('base64') };
  const o: Record<string, unknown> = {};
  for (const k of Object.keys(v)) o[k] = encodeState((v as Record<string, unknown>)[k]);
  return { $o: o };
}

export function decodeState(v: unknown): any {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(decodeState);
  const o = v as Record<string, any>;
  if ('$b' in o) return BigInt(o.$b);
  if ('$n' in o) return Number(o.$n);
  if ('$s' in o) return new Set((o.$s as unknown[]).map(decodeState));
  if ('$m' in o) return new Map((o.$m as [unknown, unknown][]).map(([k, x]) => [decodeState(k), decodeState(x)]));
  if ('$u' in o) return new Uint8Array(Buffer.from(o.$u as string, 'base64'));
  if ('$o' in o) {
    const r: Record<string, unknown> = {};
    for (const k of Object.keys(o.$o)) r[k] = decodeState(o.$o[k]);
    return r;
  }
  return o;
}
