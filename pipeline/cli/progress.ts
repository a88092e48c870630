// Progress for long phases: count, rate and ETA redrawn in place on a TTY; one start and one end line otherwise.
import { noProgress, type ProgressFactory } from '../contract/context.ts';
import type { CliIO } from './io.ts';
import { printable } from './printable.ts';

function fmtSeconds(s: number): string {
  if (!Number.isFinite(s)) return '?';
  if (s < 60) return `${s.toFixed(s < 10 ? 1 : 0)}s`;
  return `${Math.floor(s / 60)}m${Math.round(s % 60)}s`;
}

export function progressFactory(io: CliIO): ProgressFactory {
  if (io.json) return noProgress;
  return (rawLabel, total) => {
    const label = printable(rawLabel); // the redraw's own \r and escape are ours; nothing of the label's may be
    const start = performance.now();
    let count = 0;
    let lastDraw = 0;
    const interactive = io.isTTY && !io.ci;
    const draw = (force: boolean) => {
      if (!interactive) return;
      const now = performance.now();
      if (!force && now - lastDraw < 100) return;
      lastDraw = now;
      const secs = (now - start) / 1000;
      const rate = secs > 0 ? count / secs : 0;
      const eta = rate > 0 ? (total - count) / rate : Infinity;
      io.err(`\r\x1b[2K${label}: ${count}/${total} (${rate.toFixed(1)}/s, ETA ${fmtSeconds(eta)})`);
    };
    return {
      tick(n = 1) {
        count += n;
        draw(false);
      },
      set(d) {
        count = d;
        draw(false);
      },
      done(summary) {
        const secs = (performance.now() - start) / 1000;
        if (interactive) io.err('\r\x1b[2K');
        io.err(
          `${label}: ${summary === undefined ? `${count}/${total}` : printable(summary)} in ${fmtSeconds(secs)}\n`,
        );
      },
    };
  };
}
