// The `rest` catalog: a client of the Iceberg REST catalog protocol. The server owns metadata
// files; a commit sends the changes since `base` as updates with a requirement that `main`
// still points where it did (HTTP 409 = another writer won, so the writer retries).
import type { Catalog, CommitOutcome, LoadedTable, TableIdent } from './catalog.ts';
import { parseJsonLossless, type SnapshotJson, type TableMetadata } from '../metadata-json.ts';
import { stringify } from 'lossless-json';

export interface RestOptions {
  warehouse?: string;
  /** Bearer token, if the server wants one (never logged). */
  token?: string;
  /** OAuth2 client credential `id:secret` for the server's token endpoint. */
  credential?: string;
  timeoutMs?: number;
}

export class RestCatalogError extends Error {}

/** The network reason without the URL (fetch's own messages may echo it). */
function networkReason(e: unknown): string {
  const cause = (e as { cause?: { code?: string } }).cause;
  if (cause?.code) return cause.code;
  return (e as Error).name === 'TimeoutError' ? 'timed out' : 'connection failed';
}

export class RestCatalog implements Catalog {
  private prefix: string | null = null;
  private token: string | undefined;

  private readonly uri: string;
  private readonly opts: RestOptions;

  constructor(
    readonly name: string,
    uri: string,
    opts: RestOptions = {},
  ) {
    // Credentials in the URI (`http://id:secret@host`) become the OAuth client credential:
    // fetch refuses URLs with userinfo, and they must never appear in messages.
    let credential = opts.credential;
    let clean = uri;
    try {
      const u = new URL(uri);
      if (u.username || u.password) {
        credential ??= `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`;
        u.username = '';
        u.password = '';
        clean = u.href;
      }
    } catch {
      // an invalid URI is reported by the first request
    }
    this.uri = clean;
    this.opts = { ...opts, credential };
    this.token = opts.token;
  }

  /** Redacted base URL for messages: never the credentials. */
  private where(): string {
    try {
      const u = new URL(this.uri);
      u.username = '';
      u.password = '';
      return u.origin + u.pathname.replace(/\/$/, '');
    } catch {
      return '(invalid catalog uri)';
    }
  }

  private async request(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
    const url = `${this.uri.replace(/\/$/, '')}${path}`;
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : stringify(body),
        signal: AbortSignal.timeout(this.opts.timeoutMs ?? 30_000),
      });
    } catch (e) {
      throw new RestCatalogError(`Iceberg REST catalog at ${this.where()} is unreachable (${networkReason(e)})`);
    }
    const text = await res.text();
    let json: any = null;
    if (text) {
      try {
        json = parseJsonLossless(text);
      } catch {
        throw new RestCatalogError(`Iceberg REST catalog at ${this.where()} answered ${method} ${path} with non-JSON (HTTP ${res.status})`);
      }
    }
    return { status: res.status, json };
  }

  private async ensureConfig(): Promise<void> {
    if (this.prefix !== null) return;
    if (!this.token && this.opts.credential) await this.fetchToken();
    const q = this.opts.warehouse ? `?warehouse=${encodeURIComponent(this.opts.warehouse)}` : '';
    const { status, json } = await this.request('GET', `/v1/config${q}`);
    if (status !== 200) throw new RestCatalogError(`Iceberg REST catalog at ${this.where()}: GET /v1/config failed (HTTP ${status}): ${json?.error?.message ?? ''}`);
    const p = json?.overrides?.prefix ?? json?.defaults?.prefix ?? '';
    this.prefix = p ? `/${encodeURIComponent(p)}` : '';
  }

  private async fetchToken(): Promise<void> {
    const [id, secret] = (this.opts.credential ?? '').split(':');
    const res = await fetch(`${this.uri.replace(/\/$/, '')}/v1/oauth/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: id ?? '', client_secret: secret ?? '', scope: 'catalog' }),
      signal: AbortSignal.timeout(this.opts.timeoutMs ?? 30_000),
    }).catch((e: unknown) => {
      throw new RestCatalogError(`Iceberg REST catalog at ${this.where()} is unreachable (${networkReason(e)})`);
    });
    if (res.status !== 200) throw new RestCatalogError(`Iceberg REST catalog at ${this.where()} refused the client credential (HTTP ${res.status})`);
    this.token = ((await res.json()) as { access_token: string }).access_token;
  }

  private tablePath(t: TableIdent): string {
    // Multi-level namespaces are joined with the unit separator 0x1F, then URL-encoded.
    return `/v1${this.prefix}/namespaces/${encodeURIComponent(t.namespace.join('\u001f'))}/tables/${encodeURIComponent(t.name)}`;
  }

  private loaded(json: { metadata: TableMetadata; 'metadata-location': string }): LoadedTable {
    return { metadata: json.metadata, metadataLocation: json['metadata-location'] };
  }

  defaultLocation(): string {
    // The server chooses locations; callers use the loaded table's `location`.
    return '';
  }

  async load(t: TableIdent): Promise<LoadedTable | null> {
    await this.ensureConfig();
    const { status, json } = await this.request('GET', this.tablePath(t));
    if (status === 404) return null;
    if (status !== 200) throw new RestCatalogError(`Iceberg REST catalog at ${this.where()}: loading ${t.name} failed (HTTP ${status}): ${json?.error?.message ?? ''}`);
    return this.loaded(json);
  }

  async create(t: TableIdent, metadata: TableMetadata): Promise<CommitOutcome> {
    await this.ensureConfig();
    const ns = await this.request('POST', `/v1${this.prefix}/namespaces`, { namespace: t.namespace, properties: {} });
    if (ns.status !== 200 && ns.status !== 409) throw new RestCatalogError(`Iceberg REST catalog at ${this.where()}: creating namespace ${t.namespace.join('.')} failed (HTTP ${ns.status})`);
    const schema = metadata.schemas.find((s) => s['schema-id'] === metadata['current-schema-id']);
    const spec = metadata['partition-specs'].find((s) => s['spec-id'] === metadata['default-spec-id']);
    const order = (metadata['sort-orders'] as { 'order-id': number }[]).find((o) => o['order-id'] === metadata['default-sort-order-id']);
    const { status, json } = await this.request('POST', `/v1${this.prefix}/namespaces/${encodeURIComponent(t.namespace.join('\u001f'))}/tables`, {
      name: t.name,
      schema,
      'partition-spec': spec,
      'write-order': order,
      'stage-create': false,
      properties: { ...(metadata.properties ?? {}), 'format-version': String(metadata['format-version']) },
    });
    if (status === 409) return { ok: false, reason: 'conflict' };
    if (status !== 200) throw new RestCatalogError(`Iceberg REST catalog at ${this.where()}: creating ${t.name} failed (HTTP ${status}): ${json?.error?.message ?? ''}`);
    return { ok: true, table: this.loaded(json) };
  }

  async commit(t: TableIdent, base: LoadedTable, next: TableMetadata): Promise<CommitOutcome> {
    await this.ensureConfig();
    const known = new Set((base.metadata.snapshots ?? []).map((s) => String(s['snapshot-id'])));
    const kept = new Set((next.snapshots ?? []).map((s) => String(s['snapshot-id'])));
    const updates: unknown[] = [];
    for (const s of next.snapshots ?? []) if (!known.has(String(s['snapshot-id']))) updates.push({ action: 'add-snapshot', snapshot: s as SnapshotJson });
    const removed = (base.metadata.snapshots ?? []).filter((s) => !kept.has(String(s['snapshot-id']))).map((s) => s['snapshot-id']);
    if (removed.length) updates.push({ action: 'remove-snapshots', 'snapshot-ids': removed });
    const cur = next['current-snapshot-id'];
    if (cur !== null && cur !== undefined && String(cur) !== String(base.metadata['current-snapshot-id'])) {
      updates.push({ action: 'set-snapshot-ref', 'ref-name': 'main', type: 'branch', 'snapshot-id': cur });
    }
    const baseCur = base.metadata['current-snapshot-id'];
    const requirements = [
      { type: 'assert-table-uuid', uuid: base.metadata['table-uuid'] },
      { type: 'assert-ref-snapshot-id', ref: 'main', 'snapshot-id': baseCur === undefined || baseCur === -1 ? null : baseCur },
    ];
    const { status, json } = await this.request('POST', this.tablePath(t), { requirements, updates });
    if (status === 409) return { ok: false, reason: 'conflict' };
    if (status !== 200) throw new RestCatalogError(`Iceberg REST catalog at ${this.where()}: commit to ${t.name} failed (HTTP ${status}): ${json?.error?.message ?? ''}`);
    return { ok: true, table: this.loaded(json) };
  }

  async close(): Promise<void> {}
}
