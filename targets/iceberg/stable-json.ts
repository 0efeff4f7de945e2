// Deterministic JSON for generated files: object keys in insertion order as built (our
// builders add keys in a fixed order), 2-space indent, trailing newline.
export function stableJson(value: unknown): string {
  return JSON.stringify(value, null, 2) + '\n';
}
