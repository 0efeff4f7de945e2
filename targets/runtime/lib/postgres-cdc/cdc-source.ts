// The `postgres-cdc` source: an optional snapshot of the table read at the replication slot's
// consistent point, then the pgoutput change stream from exactly there. Positions are
// transaction-exact (`{ lsn, skip }`); the slot is acknowledged only by `commit(position)`.
import pg from 'pg';
import { LogicalReplicationService, PgoutputPlugin, type Pgoutput } from 'pg-logical-replication';
import type { DecodeError, RunningSource, SourceDef, SourceSink } from '../io/source-types.ts';
import { META } from '../io/source-types.ts';
import { decodeReason } from '../io/guarded-decode.ts';
import { setRowKind, truncateRow, type Row, type RowKind } from '../ops/types.ts';
import { cdcConfigOf, CdcError, connectionOf, type CdcConnection } from './at-start.ts';
import type { PostgresCdcSourceConfig } from '../config/postgres-cdc/config.ts';
import { decodeArray, decoderFor, decodeTuple, toRow, type PgColumn, type PgDecoder } from './pg-values.ts';
import { checkServer, clientConfig, connect, createSlot, describe, dropSlot, ensurePublication, quoteIdent, slotInUse, slotLagBytes, slotState, type TableInfo } from './setup.ts';
import { bigToLsn, lsnToBig } from './lsn.ts';

export type CdcOp = 'insert' | 'update' | 'delete' | 'truncate';

/** Connector metadata of a change (`METADATA FROM 'op' | 'lsn' | 'before' | 'commit_ts' | 'table'`). */
export interface CdcMeta {
  op: CdcOp;
  /**
   * The row's changelog kind (ops/types.ts): insert '+I'; an update is '-U' (old row) then
   * '+U' (new row), or '-D' old + '+I' new when it changes the primary key; delete '-D' (old
   * row); truncate '-D' on a marker row. Old rows hold every column under REPLICA IDENTITY
   * FULL, else only the key (other columns NULL).
   */
  kind: RowKind;
  /** End LSN of the transaction ('snapshot' rows: the slot's consistent point). */
  lsn: string;
  /** Old values (all columns under REPLICA IDENTITY FULL, else the key) or null. */
  before: Record<string, unknown> | null;
  commit_ts: number | null;
  table: string;
}

/**
 * Where the source stands: every transaction ending at or before `lsn` was emitted, plus the
 * first `skip` changes of the next one. `snapshot` is set while the initial snapshot runs.
 */
export interface CdcPosition {
  lsn: string;
  skip: number;
  snapshot?: { rows: number };
}

interface Txn {
  end: bigint;
  endLsn: string;
  commitTs: number | null;
  raws: Record<string, unknown>[];
}

export interface CdcSourceConfig {
  env: Record<string, string | undefined>;
  /** Queue bound (changes) before the replication stream is paused. */
  maxQueued?: number;
}

export class PostgresCdcSource implements RunningSource {
  readonly bounded = false;
  readonly finished = false;
  /** The resolved config the compiler decided (`def.config`), as received. */
  readonly config: PostgresCdcSourceConfig;
  /** DSN, table and replication names, with what the environment gives at start. */
  readonly conn: CdcConnection;
  private table: TableInfo | null = null;
  private decs: PgDecoder[] = [];
  private part = -1;
  private started: Promise<void> | null = null;
  private resume: CdcPosition | null = null;
  // Snapshot phase.
  private snap: { client: pg.Client; rows: number; done: boolean; point: string } | null = null;
  // Streaming phase.
  private service: LogicalReplicationService | null = null;
  private readonly queue: Txn[] = [];
  private queuedRows = 0;
  private current: Txn | null = null;
  private inTxn: { commitTs: number | null; raws: Record<string, unknown>[] } | null = null;
  /** End LSN of the last transaction queued (dedupe after a reconnect). */
  private lastQueued = 0n;
  private pos: CdcPosition = { lsn: '0/0', skip: 0 };
  private acked = '0/0';
  private drained: (() => void) | null = null;
  private closed = false;
  private failure: Error | null = null;
  private reconnecting = false;
  /** Errors before the first stream started are start() failures, not a reason to reconnect. */
  private streamed = false;
  private downSince = 0;
  private aux: pg.Client | null = null;
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private lagTimer: NodeJS.Timeout | null = null;
  /** Bytes of WAL the slot retains (`pg_current_wal_lsn() - confirmed_flush_lsn`); null until measured. */
  slotLagBytes: number | null = null;
  reconnects = 0;
  private readonly maxQueued: number;

  constructor(
    readonly def: SourceDef,
    private readonly out: SourceSink,
    cfg: CdcSourceConfig,
  ) {
    this.config = cdcConfigOf(def);
    this.conn = connectionOf(def.name, this.config, cfg.env);
    this.maxQueued = cfg.maxQueued ?? 50_000;
  }

  seek(pos: unknown): void {
    this.resume = pos as CdcPosition;
  }

  position(): CdcPosition {
    if (this.snap !== null) return { lsn: this.snap.point, skip: 0, snapshot: { rows: this.snap.rows } };
    return { ...this.pos };
  }

  /** The table's columns, primary key and replica identity (after the first poll). */
  tableInfo(): TableInfo | null {
    return this.table;
  }

  async poll(budget: number): Promise<number> {
    if (this.failure) throw this.failure;
    if (this.closed) return 0;
    this.started ??= this.start();
    await this.started;
    if (this.snap !== null) return this.pollSnapshot(budget);
    let n = 0;
    while (n < budget) {
      if (this.current === null) {
        const t = this.queue.shift();
        if (t === undefined) break;
        this.current = t;
      }
      const t = this.current;
      if (this.pos.skip < t.raws.length) {
        this.emit(t.raws[this.pos.skip]!);
        this.pos.skip++;
        this.queuedRows--;
        n++;
      }
      if (this.pos.skip >= t.raws.length) {
        this.pos = { lsn: t.endLsn, skip: 0 };
        this.current = null;
      }
    }
    if (this.drained !== null && this.queuedRows < this.maxQueued / 2) {
      const d = this.drained;
      this.drained = null;
      d();
    }
    if (this.failure) throw this.failure;
    return n;
  }

  private emit(raw: Record<string, unknown>): void {
    const m = (raw as any)[META] as CdcMeta;
    if (m.op === 'truncate') {
      // Only a changelog normalize knows the rows a TRUNCATE removes (it keeps them all).
      if (this.def.normalized) this.out.row(this.part, truncateRow(this.def.columns.length));
      else this.out.warn(`postgres-cdc: TRUNCATE of ${this.conn.table} at ${m.lsn}: rows already sent downstream are not deleted there (nothing in this pipeline keeps them to retract)`);
      return;
    }
    let row: Row | null;
    if (this.def.decode) {
      const err: DecodeError = { column: '', reason: '' };
      // Generated decoders of changelog sources set the kind themselves; hand-written ones may not.
      row = this.def.decode(raw, err);
      if (row !== null) setRowKind(row, m.kind);
      if (row === null) {
        this.out.dead({ partition: this.conn.table, offset: Number(lsnToBig(m.lsn === 'snapshot' ? '0/0' : m.lsn)) }, decodeReason(err), JSON.stringify(raw, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)));
        return;
      }
    } else {
      row = setRowKind(toRow(raw, this.def.columns), m.kind);
    }
    this.out.row(this.part, row);
  }

  private async start(): Promise<void> {
    const o = this.conn;
    const c = await connect(o);
    this.aux = c;
    this.table = await checkServer(o, c);
    const cols = this.table.columns;
    this.decs = cols.map(decoderFor);
    this.part = this.out.partitionAdded(o.table);
    await ensurePublication(o, c);
    const slot = await slotState(o, c);
    if (slot.exists && slot.plugin !== 'pgoutput') throw new CdcError(`postgres-cdc: replication slot '${o.slot}' uses plugin '${slot.plugin}', not pgoutput`);
    if (slot.active) throw slotInUse(o, slot.activePid);
    const r = this.resume;
    if (r !== null && r.snapshot === undefined) {
      if (!slot.exists) throw new CdcError(`postgres-cdc: cannot resume: replication slot '${o.slot}' no longer exists (changes since the checkpoint are lost; drop the checkpoint to start over)`);
      this.pos = { lsn: r.lsn, skip: r.skip };
      this.lastQueued = lsnToBig(r.lsn);
      this.acked = slot.confirmedFlush ?? r.lsn;
      await this.startStream(r.lsn);
    } else if (this.config.snapshot === 'initial') {
      // A snapshot must be taken at the slot's own consistent point: an existing slot (or a
      // checkpoint taken mid-snapshot) cannot provide one, so the slot is made anew.
      if (slot.exists) {
        if (r === null) this.out.warn(`postgres-cdc: replication slot '${o.slot}' exists; it is recreated so the initial snapshot matches its start`);
        await dropSlot(o, c);
      }
      await this.startSnapshot();
    } else {
      let from = slot.confirmedFlush;
      if (!slot.exists) {
        const s = await createSlot(o, false);
        await s.repl.end().catch(() => {});
        from = s.consistentPoint;
      }
      this.pos = { lsn: from!, skip: 0 };
      this.lastQueued = lsnToBig(from!);
      this.acked = from!;
      await this.startStream(from!);
    }
    if (this.config.heartbeatMs > 0) this.heartbeatTimer = setInterval(() => void this.heartbeat(), this.config.heartbeatMs);
    this.lagTimer = setInterval(() => void this.refreshLag(), 5000);
    await this.refreshLag();
  }

  private async startSnapshot(): Promise<void> {
    const o = this.conn;
    const slot = await createSlot(o, true);
    const c = await connect(o);
    try {
      await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      await c.query(`SET TRANSACTION SNAPSHOT '${slot.snapshotName}'`);
      const cols = this.table!.columns.map((x) => quoteIdent(x.name)).join(', ');
      await c.query(`DECLARE pipec_snapshot NO SCROLL CURSOR FOR SELECT ${cols} FROM ${quoteIdent(o.schema)}.${quoteIdent(o.relname)}`);
    } catch (e) {
      await c.end().catch(() => {});
      throw describe(o, 'cannot start the initial snapshot', e);
    } finally {
      // The importing transaction now holds the snapshot; the exporting connection may go.
      await slot.repl.end().catch(() => {});
    }
    this.snap = { client: c, rows: 0, done: false, point: slot.consistentPoint };
    this.pos = { lsn: slot.consistentPoint, skip: 0 };
    this.lastQueued = lsnToBig(slot.consistentPoint);
    this.acked = slot.consistentPoint;
  }

  private async pollSnapshot(budget: number): Promise<number> {
    const s = this.snap!;
    const want = Math.max(1, Math.min(budget, this.config.snapshotFetchSize));
    const res = await s.client.query({ text: `FETCH ${want} FROM pipec_snapshot`, rowMode: 'array', types: { getTypeParser: () => (v: string) => v } } as pg.QueryConfig);
    const cols = this.table!.columns;
    for (const values of res.rows as (string | null)[][]) {
      const raw = decodeArray(cols, this.decs, values);
      (raw as any)[META] = { op: 'insert', kind: '+I', lsn: 'snapshot', before: null, commit_ts: null, table: this.conn.table } satisfies CdcMeta;
      this.emit(raw);
    }
    s.rows += res.rows.length;
    // A short fetch means the cursor is exhausted: end the snapshot transaction now, since it
    // holds a lock that blocks TRUNCATE and DDL on the table.
    if (res.rows.length < want) {
      await s.client.query('COMMIT').catch(() => {});
      await s.client.end().catch(() => {});
      this.snap = null;
      await this.startStream(this.pos.lsn);
    }
    return res.rows.length;
  }

  private async startStream(from: string): Promise<void> {
    const svc = new LogicalReplicationService(clientConfig(this.conn.dsn), {
      // The library must never acknowledge on its own: only commit(position) does.
      acknowledge: { auto: false, timeoutSeconds: 0 },
      // The library's flow control awaits every message; pausing the socket when the queue
      // is full (push/poll) costs nothing per message.
      flowControl: { enabled: false },
    });
    this.service = svc;
    svc.on('data', (lsn: string, msg: Pgoutput.Message) => this.onMessage(lsn, msg));
    svc.on('heartbeat', (_lsn: string, _ts: number, shouldRespond: boolean) => {
      if (shouldRespond) void svc.acknowledge(this.acked);
    });
    svc.on('error', (e: Error) => this.onStreamError(svc, e));
    const plugin = new PgoutputPlugin({ protoVersion: 1, publicationNames: [this.conn.publication], messages: true });
    // subscribe() resolves once the stream ends and rejects when it breaks.
    const done = svc.subscribe(plugin, this.conn.slot, from);
    done.then(
      () => this.onStreamError(svc, new Error('replication stream ended')),
      (e) => this.onStreamError(svc, e),
    );
    await new Promise<void>((resolve, reject) => {
      svc.once('start', () => {
        this.streamed = true;
        resolve();
      });
      done.catch(reject);
    }).catch((e) => {
      const msg = String(e?.message ?? e);
      if (/is active for PID/i.test(msg)) throw slotInUse(this.conn, Number(/PID (\d+)/i.exec(msg)?.[1]) || null);
      throw describe(this.conn, `cannot start replication from slot '${this.conn.slot}'`, e);
    });
  }

  private onMessage(_lsn: string, msg: Pgoutput.Message): void {
    switch (msg.tag) {
      case 'relation':
        // Values are decoded from text per the catalog, not by pg's global type parsers.
        for (const c of msg.columns) c.parser = (t: string) => t;
        return;
      case 'begin':
        // Epoch milliseconds, as every runtime TIMESTAMP (pgoutput sends microseconds).
        this.inTxn = { commitTs: Math.floor(Number(msg.commitTime) / 1000), raws: [] };
        return;
      case 'insert':
        this.change('insert', msg.new, null);
        return;
      case 'update':
        this.change('update', msg.new, msg.old ?? msg.key);
        return;
      case 'delete':
        this.change('delete', null, msg.old ?? msg.key);
        return;
      case 'truncate':
        this.change('truncate', null, null);
        return;
      case 'commit': {
        const t = this.inTxn;
        this.inTxn = null;
        const end = lsnToBig(msg.commitEndLsn!);
        // After a reconnect the server resends from the acknowledged LSN: drop what was queued.
        if (t === null || end <= this.lastQueued) return;
        this.lastQueued = end;
        if (t.raws.length === 0) return this.push({ end, endLsn: msg.commitEndLsn!, commitTs: t.commitTs, raws: [] });
        return this.push({ end, endLsn: msg.commitEndLsn!, commitTs: t.commitTs, raws: t.raws });
      }
      case 'message': {
        // A heartbeat outside a transaction: every commit before it was received, so the
        // position may move up to it (an idle database's slot then advances).
        if (msg.transactional || this.inTxn !== null || msg.messageLsn === null) return;
        const end = lsnToBig(msg.messageLsn);
        if (end <= this.lastQueued) return;
        this.lastQueued = end;
        return this.push({ end, endLsn: msg.messageLsn, commitTs: null, raws: [] });
      }
      case 'origin':
      case 'type':
        return;
    }
  }

  private change(op: CdcOp, nu: Record<string, any> | null, old: Record<string, any> | null): void {
    if (this.inTxn === null) return;
    const cols = this.table!.columns;
    const nulls = (): Record<string, unknown> => Object.fromEntries(cols.map((c) => [c.name, null]));
    const before = old === null ? null : decodeTuple(cols.filter((c) => c.name in old), this.decs.filter((_d, i) => cols[i]!.name in old), old);
    const add = (raw: Record<string, unknown>, kind: RowKind): void => {
      (raw as any)[META] = { op, kind, lsn: '', before, commit_ts: this.inTxn!.commitTs, table: this.conn.table } satisfies CdcMeta;
      this.inTxn!.raws.push(raw);
    };
    /** The old row: what PostgreSQL sent (all columns, or the key), the rest NULL. */
    const oldRow = (fallbackKey: Record<string, unknown> | null): Record<string, unknown> => {
      const r = nulls();
      if (fallbackKey !== null) for (const k of this.table!.primaryKey) r[k] = fallbackKey[k] ?? null;
      if (before !== null) for (const k of Object.keys(before)) r[k] = before[k];
      return r;
    };
    switch (op) {
      case 'insert':
        return add(decodeTuple(cols, this.decs, nu!), '+I');
      case 'update': {
        const now = decodeTuple(cols, this.decs, nu!);
        // PostgreSQL sends the old key only when it changed (or every old column under FULL).
        const pk = this.table!.primaryKey;
        const keyChanged = before !== null && pk.length > 0 && pk.some((k) => k in before && !sameValue(before[k], now[k]));
        if (keyChanged) {
          // A new key is a different row: the old one is deleted, the new one inserted.
          add(oldRow(null), '-D');
          return add(now, '+I');
        }
        add(oldRow(now), '-U');
        return add(now, '+U');
      }
      case 'delete':
        return add(oldRow(null), '-D');
      case 'truncate':
        return add(nulls(), '-D');
    }
  }

  private push(t: Txn): void {
    for (const r of t.raws) ((r as any)[META] as CdcMeta).lsn = t.endLsn;
    this.queue.push(t);
    this.queuedRows += t.raws.length;
    if (this.queuedRows >= this.maxQueued && this.drained === null) {
      const stream = (this.service as any)?._connection?.stream;
      stream?.pause?.();
      this.drained = () => stream?.resume?.();
    }
  }

  private onStreamError(svc: LogicalReplicationService, e: unknown): void {
    if (this.closed || svc !== this.service || this.reconnecting || !this.streamed) return;
    this.reconnecting = true;
    this.downSince ||= Date.now();
    this.inTxn = null;
    void this.reconnect(e);
  }

  private async reconnect(first: unknown): Promise<void> {
    let last = first;
    let delay = 250;
    await this.service?.stop().catch(() => {});
    while (!this.closed) {
      if (Date.now() - this.downSince > this.config.reconnectTimeoutMs) {
        this.failure = describe(this.conn, `replication stream lost and not re-established within ${this.config.reconnectTimeoutMs} ms`, last);
        return;
      }
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 5000);
      try {
        // Resume where the slot stands: it resends everything after the acknowledged LSN,
        // and commits at or before `lastQueued` are dropped in onMessage.
        await this.startStream(this.acked);
        this.reconnects++;
        this.reconnecting = false;
        this.downSince = 0;
        return;
      } catch (e) {
        last = e;
        await this.service?.stop().catch(() => {});
      }
    }
  }

  /** Acknowledges the slot up to a checkpointed `position()`: the server may then drop that WAL. */
  async commit(position: unknown): Promise<void> {
    const p = position as CdcPosition;
    if (p.snapshot !== undefined) return;
    if (lsnToBig(p.lsn) <= lsnToBig(this.acked)) return;
    this.acked = p.lsn;
    await this.service?.acknowledge(p.lsn);
  }

  async afterCheckpoint(): Promise<void> {
    await this.commit(this.position());
  }

  /** Replication-slot lag on `/metrics` (WAL bytes the slot still holds back). */
  gauges(): Record<string, { help: string; value: number }> {
    if (this.slotLagBytes === null) return {};
    return { pipec_replication_slot_lag_bytes: { help: 'WAL bytes between the server and the confirmed position of the replication slot.', value: this.slotLagBytes } };
  }

  /** Writes a non-transactional WAL message so an idle database still moves the slot along. */
  private async heartbeat(): Promise<void> {
    try {
      await this.auxClient().then((c) => c.query("SELECT pg_logical_emit_message(false, 'pipec-heartbeat', '')"));
    } catch {
      this.dropAux();
    }
  }

  private async refreshLag(): Promise<void> {
    try {
      this.slotLagBytes = await slotLagBytes(await this.auxClient(), this.conn.slot);
    } catch {
      this.dropAux();
    }
  }

  private async auxClient(): Promise<pg.Client> {
    if (this.aux === null) this.aux = await connect(this.conn);
    return this.aux;
  }

  private dropAux(): void {
    const c = this.aux;
    this.aux = null;
    void c?.end().catch(() => {});
  }

  /** Changes queued but not yet polled, and seconds since the oldest of them committed. */
  lag(now: number = Date.now()): { records: number; seconds: number } {
    const t = this.current ?? this.queue.find((x) => x.raws.length > 0);
    return { records: this.queuedRows, seconds: t?.commitTs ? Math.max(0, (now - t.commitTs) / 1000) : 0 };
  }

  /** The acknowledged LSN (what the slot's confirmed_flush_lsn will reach). */
  acknowledged(): string {
    return this.acked;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    if (this.lagTimer) clearInterval(this.lagTimer);
    this.drained?.();
    await this.started?.catch(() => {});
    await this.service?.destroy().catch(() => {});
    if (this.snap) await this.snap.client.end().catch(() => {});
    this.dropAux();
  }
}

function sameValue(a: unknown, b: unknown): boolean {
  return a === b || (Buffer.isBuffer(a) && Buffer.isBuffer(b) && a.equals(b));
}

export { bigToLsn };
