// Exhaustiveness check for `switch` over a tagged union: a missing case fails to compile.
export function assertNever(x: never): never {
  throw new Error(`unexpected variant: ${JSON.stringify(x)}`);
}
