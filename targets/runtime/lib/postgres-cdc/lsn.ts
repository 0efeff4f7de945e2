// PostgreSQL LSNs ('16/B374D848') as comparable BigInts and back.

export function lsnToBig(lsn: string): bigint {
  const i = lsn.indexOf('/');
  return (BigInt('0x' + lsn.slice(0, i)) << 32n) | BigInt('0x' + lsn.slice(i + 1));
}

export function bigToLsn(v: bigint): string {
  return `${(v >> 32n).toString(16).toUpperCase()}/${(v & 0xffffffffn).toString(16).toUpperCase()}`;
}
