// The rule tables in docs/catalog.md are the ones the code applies: each must appear verbatim between its marker
// comments. On a failure, paste the rendered table (shown in the diff) between the markers.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { categoryRulesMarkdown } from '../../pipeline/catalog/category.ts';
import { kindRulesMarkdown } from '../../pipeline/catalog/kind.ts';
import { paramRolesMarkdown } from '../../pipeline/catalog/param-roles.ts';
import { causeRulesMarkdown } from '../../pipeline/contract/cause-groups.ts';
import { harnessRulesMarkdown } from '../../pipeline/contract/harness.ts';

const DOC = 'docs/catalog.md';

/** The text between `<!-- name:start -->` and `<!-- name:end -->`, trimmed; null when a marker is missing. */
function marked(text: string, name: string): string | null {
  const start = text.indexOf(`<!-- ${name}:start -->`);
  const end = text.indexOf(`<!-- ${name}:end -->`);
  if (start < 0 || end < start) return null;
  return text.slice(start + `<!-- ${name}:start -->`.length, end).trim();
}

describe(`${DOC} matches the rules in code`, () => {
  const text = readFileSync(DOC, 'utf8');
  const tables: [string, string, () => string][] = [
    ['category-rules', 'categoryRulesMarkdown() in pipeline/catalog/category.ts', categoryRulesMarkdown],
    ['kind-rules', 'kindRulesMarkdown() in pipeline/catalog/kind.ts', kindRulesMarkdown],
    ['param-roles', 'paramRolesMarkdown() in pipeline/catalog/param-roles.ts', paramRolesMarkdown],
    ['cause-rules', 'causeRulesMarkdown() in pipeline/contract/cause-groups.ts', causeRulesMarkdown],
  ];
  for (const [marker, source, render] of tables) {
    it(`${marker}: the table rendered by ${source}`, () => {
      const found = marked(text, marker);
      expect(found, `${DOC} has <!-- ${marker}:start --> ... <!-- ${marker}:end -->`).not.toBeNull();
      expect(found, `${DOC}: the ${marker} table is out of date; replace it with ${source}'s output`).toBe(render());
    });
  }
});

describe('docs/validate.md matches the harness table in code', () => {
  it('harness-rules: the table rendered by harnessRulesMarkdown() in pipeline/contract/harness.ts', () => {
    const found = marked(readFileSync('docs/validate.md', 'utf8'), 'harness-rules');
    expect(found, 'docs/validate.md has <!-- harness-rules:start --> ... <!-- harness-rules:end -->').not.toBeNull();
    expect(found, 'docs/validate.md: the harness-rules table is out of date').toBe(harnessRulesMarkdown());
  });
});
