// Chart text widths (src/lib/chart-text.ts): an estimate that errs wide, and labels cut to fit with "…".
import { describe, expect, it } from 'vitest';
import { fitText, textWidth } from '../../src/lib/chart-text.ts';

describe('chart text', () => {
  it('errs wide of what Chromium draws', () => {
    // Measured in the site's sans-serif at 13 px (layout.browser.test.ts checks the charts themselves).
    expect(textWidth('Detection and segment…', 13)).toBeGreaterThan(165.9);
  });

  it('keeps a label that fits, cuts one that does not', () => {
    expect(fitText('Detection and segmentation', 220, 13)).toBe('Detection and segmentation');
    const cut = fitText('Detection and segmentation', 120, 13);
    expect(cut).toMatch(/^Detection.*…$/);
    expect(textWidth(cut, 13)).toBeLessThanOrEqual(120);
  });
});
