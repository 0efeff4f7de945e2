// When a window is closed by the watermark — Flink SQL's exact rule, shared by the window
// operators so TUMBLE/HOP/CUMULATE and SESSION agree at the boundary. Flink fires a window
// [start, end) when the watermark reaches end - 1 ms (the window's max timestamp, the event-time
// timer of its window operators: `isWindowFired` / `isWindowLate`) and drops an event whose
// last window has fired. So with watermark W and allowed lateness L a window is closed once
// end - 1 + L <= W: the watermark equal to end - 1 already closes it, and an event at end - 1
// arriving then is late. docs/language-decisions.md ("Window boundaries") states the rule.

/** True when the window ending at `end` has fired (or fires) at watermark `wm`. */
export function windowClosed(end: number, allowedLatenessMs: number, wm: number): boolean {
  return end - 1 + allowedLatenessMs <= wm;
}
