// The NDJSON lines one worker makes for the main thread's sinks, encoded to UTF-8 as they come,
// into a ring of slots shared with the main thread: message k to the main thread uses slot
// k mod OUT_SLOTS, free again once the main thread has taken message k − OUT_SLOTS (the `taken`
// counter the worker's flow control already reads). The bytes are written once and never
// allocated, copied or garbage-collected per message. When the slot is not yet free (the main
// thread is behind) or a message outgrows it (long lines), its lines go in a buffer of their own,
// moved to the main thread. Per sink, lines are concatenated into a short text (V8 links the
// strings without copying) and every ~32k characters encoded at once: joining a whole message's
// lines (4,096 strings) cost twice as much a line, the strings no longer in the cache.
// Measured on q2 (1M bids, 2 workers): see docs/workers.md (Speed).
const GATHER_CHARS = 32 * 1024;
/** Slots in a worker's ring (≤ the messages it lets be in flight before it stops reading). */
export const OUT_SLOTS = 8;
/** Bytes of one slot: 4,096 lines of ~250 bytes. */
export const SLOT_BYTES = 1 << 20;

/** What goes to the main thread for one sink: its lines as UTF-8 and how many rows they are. */
export type LineSegment = [sinkId: string, bytes: Uint8Array, rows: number];

interface Pending {
  text: string;
  rows: number;
}

export class LineBatches {
  private readonly pending = new Map<string, Pending>();
  private segments: LineSegment[] = [];
  private moved: ArrayBuffer[] = [];
  /** Bytes of this message's slot used so far; -1 when the slot was not free (own buffers). */
  private used = 0;
  private slotChecked = false;

  /**
   * @param ring the worker's OUT_SLOTS × SLOT_BYTES shared bytes
   * @param message the number of the message being made (messages sent so far)
   * @param slotFree whether message `message`'s slot has been taken by the main thread
   */
  constructor(
    private readonly ring: SharedArrayBuffer,
    private readonly message: () => number,
    private readonly slotFree: () => boolean,
  ) {}

  /** Adds one line (without its newline); true when this message's slot is full and it should go now. */
  add(sinkId: string, line: string): boolean {
    let p = this.pending.get(sinkId);
    if (p === undefined) this.pending.set(sinkId, (p = { text: '', rows: 0 }));
    p.text += line;
    p.text += '\n';
    p.rows++;
    return p.text.length >= GATHER_CHARS && this.encode(sinkId, p);
  }

  /** This message's lines, in order per sink, and the buffers to move with it; the next message starts. */
  take(): { lines: LineSegment[]; moved: ArrayBuffer[] } {
    for (const [id, p] of this.pending) this.encode(id, p);
    const out = { lines: this.segments, moved: this.moved };
    this.segments = [];
    this.moved = [];
    this.used = 0;
    this.slotChecked = false;
    return out;
  }

  /** Encodes a sink's pending text; true when the slot could not hold it. */
  private encode(sinkId: string, p: Pending): boolean {
    const text = p.text;
    if (text.length === 0) return false;
    const rows = p.rows;
    p.text = '';
    p.rows = 0;
    if (!this.slotChecked) {
      this.slotChecked = true;
      if (!this.slotFree()) this.used = -1;
    }
    // A UTF-16 code unit takes at most 3 bytes of UTF-8.
    if (this.used >= 0 && this.used + text.length * 3 <= SLOT_BYTES) {
      const start = (this.message() % OUT_SLOTS) * SLOT_BYTES + this.used;
      const bytes = Buffer.from(this.ring, start, SLOT_BYTES - this.used);
      const n = bytes.write(text, 0, 'utf8');
      this.used += n;
      this.segments.push([sinkId, new Uint8Array(this.ring, start, n), rows]);
      return false;
    }
    const slotFull = this.used >= 0;
    // Slow: not from Node's shared pool, so the buffer is its own ArrayBuffer and can be moved.
    const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text, 'utf8'));
    bytes.write(text, 0, 'utf8');
    this.segments.push([sinkId, new Uint8Array(bytes.buffer, 0, bytes.length), rows]);
    this.moved.push(bytes.buffer as ArrayBuffer);
    return slotFull;
  }
}
