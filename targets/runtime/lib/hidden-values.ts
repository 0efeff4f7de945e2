// The values `${NAME}` resolved to at run time (DSNs, URLs with passwords, broker lists) and
// the one filter that keeps them out of what the runner prints: a connector's error text often
// quotes its connection string or host (`getaddrinfo ENOTFOUND <host>`), and runtime output
// lands in CI logs. Every line the runner writes to stderr passes through `hideValues`.

/** Shorter values are not hidden: replacing every `1` or `dev` would garble the text. */
const MIN_HIDDEN_LENGTH = 4;

const hidden = new Map<string, string>();

/** Called by `subst`: `value` will be shown as `${NAME}` from now on. */
export function noteSubstituted(name: string, value: string): void {
  if (value.length >= MIN_HIDDEN_LENGTH && !hidden.has(value)) hidden.set(value, `\${${name}}`);
}

/** `text` with every substituted value replaced by its `${NAME}`, longest value first. */
export function hideValues(text: string): string {
  if (hidden.size === 0) return text;
  let out = text;
  for (const [value, shown] of [...hidden].sort((a, b) => b[0].length - a[0].length)) out = out.split(value).join(shown);
  return out;
}
