// Shiki, created once per build (loading grammars and themes costs ~100 ms; highlighting a stub ~2 ms).
// The JavaScript regex engine: no wasm to load, and ~15% faster than Oniguruma on these short stubs.
// Dual themes without a default colour: CSS picks --shiki-light or --shiki-dark, so dark mode needs no rebuild.
// Themes chosen for contrast: every token colour keeps 4.5:1 on the site's code background (#f6f8fa light, #151b23
// dark). github-light's keywords (#d73a49) had 4.30:1 and github-light-default's comments (#6e7781) 4.27:1, so light
// is GitHub's high-contrast theme; github-dark-default passes as it is.
// Shiki escapes every token, which is why its HTML is the one thing pages insert with set:html.
import { createHighlighter, type Highlighter } from 'shiki';
import { createJavaScriptRegexEngine } from 'shiki/engine/javascript';

/** The light and dark code themes (test/site/code-contrast.test.ts holds them to 4.5:1 on the code background). */
export const CODE_THEMES = { light: 'github-light-high-contrast', dark: 'github-dark-default' } as const;

let highlighter: Promise<Highlighter> | undefined;

export async function highlightPython(code: string): Promise<string> {
  highlighter ??= createHighlighter({
    themes: [CODE_THEMES.light, CODE_THEMES.dark],
    langs: ['python'],
    engine: createJavaScriptRegexEngine(),
  });
  return (await highlighter).codeToHtml(code, {
    lang: 'python',
    themes: CODE_THEMES,
    defaultColor: false,
  });
}
