// Path globs for include/exclude: `**` spans folders, a named folder covers what is below it, braces alternate.
import { describe, expect, it } from 'vitest';
import { folderMayMatch, globProblem, matchGlob } from '../../pipeline/util/glob.ts';

describe('globs', () => {
  const cases: [string, string, boolean][] = [
    ['**/*.py', 'a.py', true], // `**/` also matches zero folders
    ['**/*.py', 'a/b/c.py', true],
    ['pkg/*.py', 'pkg/sub/x.py', false], // `*` stays inside one segment
    ['pkg/**/*.py', 'pkg/x.py', true],
    ['torchvision/models', 'torchvision/models/resnet.py', true], // a folder covers its contents
    ['torchvision/models', 'torchvision/models_extra.py', false],
    ['src/{a,b}/**/*.py', 'src/b/x/y.py', true],
    ['src/{a,b}/**/*.py', 'src/c/y.py', false],
    ['**/test_*.py', 'pkg/tests/test_x.py', true],
    ['mod?.py', 'mod1.py', true],
    ['[ab].py', 'c.py', false],
    ['a.b.py', 'aXb.py', false], // dots are literal
  ];
  it.each(cases)('%s vs %s → %s', (glob, path, want) => expect(matchGlob(glob, path)).toBe(want));

  it('prunes folders no include can reach', () => {
    expect(folderMayMatch(['torchvision/**/*.py'], 'torchvision')).toBe(true);
    expect(folderMayMatch(['torchvision/models/**/*.py'], 'torchvision')).toBe(true);
    expect(folderMayMatch(['torchvision/models/**/*.py'], 'docs')).toBe(false);
    expect(folderMayMatch(['**/*.py'], 'anything')).toBe(true);
  });

  it('names globs that can never match', () => {
    expect(globProblem('/abs/*.py')?.fix).toBe('drop the leading slash: "abs/*.py"');
    expect(globProblem('../up/*.py')?.message).toMatch(/can never match/);
    expect(globProblem('a/{b,c/*.py')?.message).toMatch(/unbalanced braces/);
    expect(globProblem('pkg/**/*.py')).toBeNull();
  });
});
