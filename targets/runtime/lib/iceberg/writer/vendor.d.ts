// Type declarations for a dependency that ships none.
declare module 'murmurhash3js-revisited' {
  const murmur: {
    x86: { hash32(bytes: Uint8Array | number[], seed?: number): number };
  };
  export default murmur;
}
