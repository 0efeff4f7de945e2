// Removes credentials from URLs and DSNs before they reach a message: diagnostics end up in CI
// logs and pull-request comments.

/** `https://key:secret@host/x` → `https://***@host/x`; the whole userinfo is a credential (API key + secret). */
export function redactUrl(url: string): string {
  // Anywhere in the text, not only at its start: error messages quote URLs mid-sentence.
  return url.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/?#@\s]*@/gi, '$1***@');
}

/**
 * Hides the password of a PostgreSQL connection string in each of its spellings:
 * `postgres://user:pw@host/db`, `?password=pw` and `password=pw` (key/value form).
 */
export function redactDsn(dsn: string): string {
  return dsn
    .replace(/^([a-z][a-z0-9+.-]*:\/\/[^/?#@:]*):[^/?#@]*@/i, '$1:***@')
    .replace(/([?&]password=)[^&#]*/gi, '$1***')
    .replace(/(^|\s)(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)/gi, '$1$2***');
}
