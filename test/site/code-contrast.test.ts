// The code themes (src/lib/highlight.ts) against the site's code backgrounds: every token colour at 4.5:1 or more
// (WCAG 1.4.3), checked on the themes' own definitions so a Shiki update that pales a colour fails here, not in
// production. axe-core checks the colours a page happens to use (a11y.browser.test.ts); this checks them all.
import { bundledThemes, type ThemeRegistration } from 'shiki';
import { describe, expect, it } from 'vitest';
import { CODE_THEMES } from '../../src/lib/highlight.ts';

/** --card in src/styles/global.css: the background of code blocks, light and dark. */
const BACKGROUNDS = { light: '#f6f8fa', dark: '#151b23' };

function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5]
    .map((i) => parseInt(hex.slice(i, i + 2), 16) / 255)
    .map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
const contrast = (a: string, b: string) => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
};

describe('code colours', () => {
  for (const mode of ['light', 'dark'] as const) {
    it(`keeps every ${mode} token colour at 4.5:1 on the code background`, async () => {
      const theme = ((await bundledThemes[CODE_THEMES[mode]]()) as { default: ThemeRegistration }).default;
      const colours = (theme.tokenColors ?? [])
        // A token drawn on its own background (invalid code markers) is not drawn on ours.
        .filter((t) => t.settings.foreground && !t.settings.background)
        .map((t) => t.settings.foreground!.slice(0, 7).toLowerCase());
      expect(colours.length).toBeGreaterThan(5);
      const pale = [...new Set(colours)].filter((c) => contrast(c, BACKGROUNDS[mode]) < 4.5);
      expect(pale).toEqual([]);
    });
  }
});
