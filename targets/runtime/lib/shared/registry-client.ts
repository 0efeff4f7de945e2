// A client of the Confluent Schema Registry REST protocol (also served by Karapace, Redpanda,
// Apicurio's ccompat API): read one subject version and the subject's compatibility level.
import { redactUrl } from './redact.ts';

export interface RegistryReference {
  name: string;
  subject: string;
  version: number;
}

export interface RegistrySchema {
  subject: string;
  version: number;
  id: number;
  /** AVRO when the registry omits it (the protocol's default). */
  schemaType: string;
  schema: string;
  references: RegistryReference[];
}

export type RegistryFailure =
  | { code: 'registry-unreachable'; reason: string }
  | { code: 'registry-subject-not-found'; detail: string }
  | { code: 'registry-unauthorized'; status: number }
  | { code: 'registry-bad-response'; detail: string };

export type RegistryResult<T> = { ok: true; value: T } | { ok: false; failure: RegistryFailure };

type HttpAnswer = { kind: 'answer'; status: number; body: unknown } | { kind: 'failed'; failure: RegistryFailure };

export class RegistryClient {
  /** The URL as messages show it (no credentials). */
  readonly displayUrl: string;
  private readonly base: string;
  private readonly auth: string | null;
  /** Why the URL cannot be used at all (not http/https), or null. */
  private readonly invalid: string | null;

  constructor(url: string, private readonly timeoutMs: number) {
    this.displayUrl = redactUrl(url).replace(/\/+$/, '');
    let base = url.replace(/\/+$/, '');
    let auth: string | null = null;
    let invalid: string | null = null;
    try {
      // fetch() refuses URLs with credentials: they go into a Basic auth header instead.
      const u = new URL(url);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') invalid = `PIPEC_SCHEMA_REGISTRY_URL must be an http:// or https:// URL, not ${u.protocol}`;
      if (u.username || u.password) {
        auth = 'Basic ' + Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64');
        u.username = '';
        u.password = '';
        base = u.toString().replace(/\/+$/, '');
      }
    } catch {
      invalid = 'PIPEC_SCHEMA_REGISTRY_URL is not a URL (expected e.g. http://localhost:8081)';
    }
    this.base = base;
    this.auth = auth;
    this.invalid = invalid;
  }

  async getVersion(subject: string, version: string): Promise<RegistryResult<RegistrySchema>> {
    const a = await this.get(`/subjects/${encodeURIComponent(subject)}/versions/${encodeURIComponent(version)}`);
    if (a.kind === 'failed') return { ok: false, failure: a.failure };
    if (a.status === 404) return { ok: false, failure: { code: 'registry-subject-not-found', detail: errorMessage(a.body) ?? 'HTTP 404' } };
    const other = statusFailure(a.status, a.body);
    if (other) return { ok: false, failure: other };
    return schemaAnswer(a.body, subject, Number(version) || 0, 0);
  }

  /**
   * The schema with global id `id` (`GET /schemas/ids/{id}`), as the Confluent wire format
   * names it. An unknown id fails with `registry-subject-not-found` (the detail says which id);
   * `subject` and `version` are unknown here and come back as '' and 0.
   */
  async getById(id: number): Promise<RegistryResult<RegistrySchema>> {
    const a = await this.get(`/schemas/ids/${id}`);
    if (a.kind === 'failed') return { ok: false, failure: a.failure };
    if (a.status === 404) return { ok: false, failure: { code: 'registry-subject-not-found', detail: errorMessage(a.body) ?? `schema id ${id}: HTTP 404` } };
    const other = statusFailure(a.status, a.body);
    if (other) return { ok: false, failure: other };
    return schemaAnswer(a.body, '', 0, id);
  }

  /** The subject's compatibility level, else the global one; null when neither is readable. */
  async getCompatibility(subject: string): Promise<string | null> {
    for (const p of [`/config/${encodeURIComponent(subject)}`, '/config']) {
      const a = await this.get(p);
      if (a.kind === 'answer' && a.status === 200) {
        const b = a.body as Record<string, unknown> | null;
        // GET returns `compatibilityLevel`; some servers echo the PUT body's `compatibility`.
        const level = b?.compatibilityLevel ?? b?.compatibility;
        if (typeof level === 'string') return level.toUpperCase();
      }
      if (a.kind === 'failed' || a.status !== 404) return null;
    }
    return null;
  }

  private async get(p: string): Promise<HttpAnswer> {
    if (this.invalid) return { kind: 'failed', failure: { code: 'registry-unreachable', reason: this.invalid } };
    const ctl = new AbortController();
    const timer = setTimeout(() => ctl.abort(), this.timeoutMs);
    try {
      const headers: Record<string, string> = { accept: 'application/vnd.schemaregistry.v1+json, application/json' };
      if (this.auth) headers.authorization = this.auth;
      const res = await fetch(this.base + p, { headers, signal: ctl.signal });
      const text = await res.text();
      let body: unknown = null;
      if (text.trim() !== '') {
        try {
          body = JSON.parse(text);
        } catch {
          if (res.status === 401 || res.status === 403) return { kind: 'answer', status: res.status, body: null };
          return { kind: 'failed', failure: { code: 'registry-bad-response', detail: `HTTP ${res.status} with a body that is not JSON: ${snippet(text)}` } };
        }
      }
      return { kind: 'answer', status: res.status, body };
    } catch (e) {
      if (ctl.signal.aborted) return { kind: 'failed', failure: { code: 'registry-unreachable', reason: `no answer within ${this.timeoutMs} ms` } };
      return { kind: 'failed', failure: { code: 'registry-unreachable', reason: networkReason(e) } };
    } finally {
      clearTimeout(timer);
    }
  }
}

/** The schema part of a registry answer (`schema`, `schemaType`, `references`), checked. */
function schemaAnswer(body: unknown, subject: string, version: number, id: number): RegistryResult<RegistrySchema> {
  const b = body as Record<string, unknown>;
  if (typeof b !== 'object' || b === null || typeof b.schema !== 'string') {
    return { ok: false, failure: { code: 'registry-bad-response', detail: 'the answer has no "schema" string' } };
  }
  const refs = Array.isArray(b.references) ? (b.references as Record<string, unknown>[]) : [];
  const references: RegistryReference[] = [];
  for (const r of refs) {
    if (typeof r?.name !== 'string' || typeof r.subject !== 'string' || typeof r.version !== 'number') {
      return { ok: false, failure: { code: 'registry-bad-response', detail: 'a reference lacks name, subject or version' } };
    }
    references.push({ name: r.name, subject: r.subject, version: r.version });
  }
  return {
    ok: true,
    value: {
      subject: typeof b.subject === 'string' ? b.subject : subject,
      version: typeof b.version === 'number' ? b.version : version,
      id: typeof b.id === 'number' ? b.id : id,
      schemaType: typeof b.schemaType === 'string' ? b.schemaType.toUpperCase() : 'AVRO',
      schema: b.schema,
      references,
    },
  };
}

function statusFailure(status: number, body: unknown): RegistryFailure | null {
  if (status === 200) return null;
  if (status === 401 || status === 403) return { code: 'registry-unauthorized', status };
  return { code: 'registry-bad-response', detail: `HTTP ${status}${errorMessage(body) ? `: ${errorMessage(body)}` : ''}` };
}

/** The protocol's error body: `{"error_code": 40401, "message": "Subject not found."}`. */
function errorMessage(body: unknown): string | null {
  const m = (body as { message?: unknown } | null)?.message;
  return typeof m === 'string' ? m : null;
}

function snippet(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return JSON.stringify(t.length > 60 ? `${t.slice(0, 60)}...` : t);
}

/** undici wraps the system error in `cause`; its code (ECONNREFUSED, ENOTFOUND) is what helps. */
function networkReason(e: unknown): string {
  const cause = (e as { cause?: { code?: string; message?: string } })?.cause;
  if (cause?.code) return cause.code === 'ECONNREFUSED' ? 'connection refused' : cause.code === 'ENOTFOUND' ? 'host not found' : cause.code;
  const msg = cause?.message ?? (e instanceof Error ? e.message : String(e));
  // Never echo a URL from the error: it may carry the credentials.
  return redactUrl(msg);
}
