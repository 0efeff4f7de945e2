// Event time of one source: bounded-out-of-orderness watermark per partition, the source
// watermark as the minimum over partitions that are neither idle nor finished, and the
// all-idle rule of LANGUAGE.md (advance with processing time minus the delay). A partition
// whose source reports unread records (Kafka lag) is never idle, however long it is quiet.

export interface PartitionClock {
  id: string;
  /** Highest event time seen; -Infinity before the first record. */
  maxTs: number;
  /** Processing time of the last record (or of the partition's start). */
  lastSeen: number;
  idle: boolean;
  done: boolean;
  /** Taken away by a consumer-group rebalance: neither holds the watermark back nor ends the source. */
  revoked: boolean;
  /**
   * The source knows (or cannot yet rule out) unread records in this partition: a Kafka
   * partition whose high watermark is beyond its position. Such a partition is never idle:
   * silence there means the consumer is slow, not that nothing happens. Sources that know no
   * lag (files, datagen) never set it.
   */
  behind: boolean;
}

export class SourceClock {
  readonly parts = new Map<string, PartitionClock>();
  /** The same partitions as an array: recompute() runs per record and must not allocate. */
  private list: PartitionClock[] = [];
  wm = Number.NEGATIVE_INFINITY;

  constructor(
    readonly delayMs: number,
    readonly idleTimeoutMs: number | null,
  ) {}

  partition(id: string, now: number): PartitionClock {
    let p = this.parts.get(id);
    if (p === undefined) {
      p = { id, maxTs: Number.NEGATIVE_INFINITY, lastSeen: now, idle: false, done: false, revoked: false, behind: false };
      this.parts.set(id, p);
      this.list.push(p);
    }
    return p;
  }

  /** Records an event time; returns true when the source watermark moved. */
  observe(p: PartitionClock, ts: number, now: number): boolean {
    p.lastSeen = now;
    if (p.idle) {
      p.idle = false;
      // A partition coming back from idle may not move the watermark backwards.
      if (ts > p.maxTs) p.maxTs = ts;
      return this.recompute(now);
    }
    if (ts <= p.maxTs) return false;
    const held = p.maxTs - this.delayMs <= this.wm;
    p.maxTs = ts;
    if (!held) return false;
    if (this.list.length === 1 && !p.done) {
      // One partition (the common file/datagen case): its watermark is the source's.
      const w = ts - this.delayMs;
      if (w > this.wm) {
        this.wm = w;
        return true;
      }
      return false;
    }
    return this.recompute(now);
  }

  finish(p: PartitionClock, now: number): boolean {
    p.done = true;
    return this.recompute(now);
  }

  /** A rebalance moved the partition to another member (or back): see `PartitionClock.revoked`. */
  setRevoked(p: PartitionClock, revoked: boolean, now: number): boolean {
    p.revoked = revoked;
    p.lastSeen = now;
    return this.recompute(now);
  }

  /**
   * The source's word on a partition's lag: `behind` = it has unread records. A partition with
   * lag stops being idle at once; once caught up (a fetch found nothing and the lag is zero)
   * its quiet time counts from now, not from its last record. Returns true when the watermark moved.
   */
  setBehind(p: PartitionClock, behind: boolean, now: number): boolean {
    if (p.behind === behind) return false;
    p.behind = behind;
    if (!behind) {
      if (now > p.lastSeen) p.lastSeen = now;
      return false;
    }
    if (!p.idle) return false;
    p.idle = false;
    return this.recompute(now);
  }

  /**
   * An explicit watermark for one partition: as if it had seen event time `wm + delay`, so the
   * bounded-delay rule gives exactly `wm` (never backwards). Returns true when the source watermark moved.
   */
  advanceTo(p: PartitionClock, wm: number, now: number): boolean {
    const ts = wm + this.delayMs;
    if (ts > p.maxTs) p.maxTs = ts;
    p.lastSeen = now;
    if (p.idle) p.idle = false;
    return this.recompute(now);
  }

  /** Declares a partition idle now (a scripted idle step): it stops holding the watermark back. */
  setIdle(p: PartitionClock, now: number): boolean {
    if (p.done || p.idle) return false;
    p.idle = true;
    return this.recompute(now);
  }

  /** Processing-time check of idleness; returns true when the watermark moved. */
  tick(now: number): boolean {
    if (this.idleTimeoutMs === null) return false;
    let changed = false;
    for (const p of this.parts.values()) {
      if (!p.done && !p.idle && !p.revoked && !p.behind && now - p.lastSeen >= this.idleTimeoutMs) {
        p.idle = true;
        changed = true;
      }
    }
    return this.recompute(now) || changed;
  }

  get allDone(): boolean {
    if (this.parts.size === 0) return false;
    for (const p of this.parts.values()) if (!p.done || p.revoked) return false;
    return true;
  }

  recompute(now: number): boolean {
    let min = Number.POSITIVE_INFINITY;
    let active = 0;
    let idle = 0;
    let revoked = 0;
    const list = this.list;
    for (let i = 0; i < list.length; i++) {
      const p = list[i]!;
      if (p.revoked) {
        revoked++;
        continue;
      }
      if (p.done) continue;
      if (p.idle) {
        idle++;
        continue;
      }
      active++;
      const w = p.maxTs - this.delayMs;
      if (w < min) min = w;
    }
    let next: number;
    if (active > 0) next = min;
    else if (idle > 0) next = now - this.delayMs;
    // Every partition revoked: this member owns nothing and learns nothing about event time.
    else if (revoked > 0) next = Number.NEGATIVE_INFINITY;
    else next = list.length > 0 ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY;
    if (next > this.wm) {
      this.wm = next;
      return true;
    }
    return false;
  }

  snapshot(): unknown {
    return { wm: this.wm, parts: [...this.parts.values()].map((p) => [p.id, p.maxTs, p.done]) };
  }

  restore(s: unknown, now: number): void {
    const st = s as { wm: number; parts: [string, number, boolean][] };
    this.wm = st.wm;
    for (const [id, maxTs, done] of st.parts) {
      const p = this.partition(id, now);
      p.maxTs = maxTs;
      p.done = done;
    }
  }
}
