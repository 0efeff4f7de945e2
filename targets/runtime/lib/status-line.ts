// The live status line of `pipec run` on a terminal, and the totals it leaves at the end.
// It shares the terminal with stdout sinks and with messages: every other write goes through
// `around`, which clears the line first and draws it again after, so rows and messages never
// run into it. Nothing here may fail a pipeline: a value that cannot be shown is shown as `?`,
// and any exception while rendering or writing the line is swallowed.
import type { Metrics } from './metrics.ts';

/** Largest |epoch ms| a JavaScript Date holds (±100,000,000 days). */
const DATE_LIMIT_MS = 8.64e15;

/**
 * A watermark or event time for people: `YYYY-MM-DD HH:MM:SS` (UTC), `end` after the last
 * record, `-` before the first (or NULL), `?` when it is no time a Date can hold (a record carried a
 * timestamp beyond year 275760, or NaN).
 */
export function formatTime(ms: number | null | undefined): string {
  if (ms === Number.POSITIVE_INFINITY) return 'end';
  if (ms === Number.NEGATIVE_INFINITY || ms === null || ms === undefined) return '-';
  if (typeof ms !== 'number' || Number.isNaN(ms) || Math.abs(ms) > DATE_LIMIT_MS) return '?';
  const iso = new Date(ms).toISOString();
  // Years beyond 9999 come out as `+010000-...`: keep everything before the fraction.
  return iso.replace('T', ' ').replace(/\.\d+Z$/, '');
}

export function watermarksText(m: Metrics): string {
  return [...m.watermarks].map(([s, w]) => `${s} ${formatTime(w)}`).join(', ');
}

interface Totals {
  recordsIn: number;
  recordsOut: number;
  late: number;
  dead: number;
}

function sum(m: Map<string, number>): number {
  let n = 0;
  for (const v of m.values()) if (Number.isFinite(v)) n += v;
  return n;
}

export function totals(m: Metrics): Totals {
  return { recordsIn: sum(m.recordsIn()), recordsOut: sum(m.recordsOut()), late: sum(m.late), dead: sum(m.deadLetters()) };
}

/**
 * What the run did, for the last line on the terminal: totals, never rates. `how` says how it
 * ended (finished at the end of its input, stopped by a signal, failed).
 */
export function summaryLine(m: Metrics, now: number, how: 'finished' | 'stopped' | 'failed'): string {
  const t = totals(m);
  const secs = Math.max(0, (now - m.startedAt) / 1000);
  const wm = watermarksText(m);
  return (
    `${how} after ${secs.toFixed(1)} s: in ${t.recordsIn} records  out ${t.recordsOut} rows  late ${t.late}  dead ${t.dead}  ` +
    `checkpoints ${m.checkpoints}${wm === '' ? '' : `  wm [${wm}]`}`
  );
}

const CLEAR = '\r\x1b[K';

/** Owns the status line on a terminal (`enabled`), or does nothing at all (not a terminal). */
export class StatusRenderer {
  /** The text on screen now; '' when no line is shown. */
  private shown = '';

  constructor(
    private readonly write: (text: string) => void,
    readonly enabled: boolean,
  ) {}

  /** A writer to the same terminal that clears the status line before and redraws it after. */
  around(w: (text: string) => void): (text: string) => void {
    if (!this.enabled) return w;
    return (text) => {
      if (this.shown === '') return w(text);
      this.quiet(CLEAR);
      w(text);
      this.quiet(CLEAR + this.shown);
    };
  }

  /** Draws the line `render` gives; a failure to render or to write is swallowed (the line is left out). */
  draw(render: () => string): void {
    if (!this.enabled) return;
    let text: string;
    try {
      text = render().replace(/[\r\n]/g, ' ');
    } catch {
      text = '';
    }
    this.shown = text;
    this.quiet(CLEAR + text);
  }

  /** Replaces the line by `render`'s text and ends it with a newline; nothing is redrawn after. */
  finish(render: () => string): void {
    if (!this.enabled) return;
    let text: string;
    try {
      text = render();
    } catch {
      text = '';
    }
    this.shown = '';
    this.quiet(CLEAR + (text === '' ? '' : text + '\n'));
  }

  private quiet(text: string): void {
    try {
      this.write(text);
    } catch {
      // The terminal went away (EIO, EPIPE): the status line is not worth failing for.
    }
  }
}
