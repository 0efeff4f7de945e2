// Table UUIDs derived from names (RFC 4122 version 5 layout over SHA-1), so two builds of the
// same spec produce byte-identical metadata and a table keeps its UUID across rebuilds.
import { createHash } from 'node:crypto';

/** A fixed namespace for pipec-generated Iceberg tables. */
const NAMESPACE = '6f1c9a52-3b7e-5d4a-9c1e-7a2b8d0e4f61';

export function nameUuid(name: string): string {
  const ns = Buffer.from(NAMESPACE.replace(/-/g, ''), 'hex');
  const hash = createHash('sha1').update(ns).update(name, 'utf8').digest();
  const b = hash.subarray(0, 16);
  b[6] = (b[6]! & 0x0f) | 0x50; // version 5
  b[8] = (b[8]! & 0x3f) | 0x80; // RFC 4122 variant
  const hex = b.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
