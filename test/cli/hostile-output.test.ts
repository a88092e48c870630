// Upstream text on a terminal or CI log: a syntax error's snippet, a file name, a URL from a checkout's config can
// carry a bare carriage return followed by `::error ...::` — a GitHub workflow command, since the runner reads
// every line (and `\r` ends one) that starts with `::` — or terminal escapes. Human output escapes every control
// character of upstream text and never starts a line with `::` from it; JSON output stays JSON.
import { describe, expect, it } from 'vitest';
import { writeConfig } from '../helpers/run.ts';
import { gitIn, gitRepo, tempDir } from '../helpers/tree.ts';
import { cli } from '../helpers/cli.ts';

// What a GitHub runner would take for a command: a line (ended by \n or \r) starting with `::`, spaces allowed.
const WORKFLOW_COMMAND = /(^|[\r\n])[ \t]*::/;
// Controls no human output of ours holds: every C0 but \n, DEL, C1, the line and paragraph separators.
const RAW_CONTROL = /(?!\n)[\p{Cc}\u2028\u2029]/u;

const INJECTION = '\r::error file=evil.py,line=1::pwned\r\x1b]0;title\x07\u009b31m\u2028::warning::x';

describe('human output of hostile upstream text', () => {
  it('a syntax-error snippet in `nnblocks build` output carries no control character and starts no command', async () => {
    const repo = gitRepo({
      'pkg/__init__.py': '',
      'pkg/ok.py': 'import torch.nn as nn\nclass Ok(nn.Module):\n    def forward(self, x):\n        return x\n',
      'pkg/bad.py': `@@${INJECTION}\n`, // one ERROR node: the whole line is the snippet
    });
    const config = writeConfig([{ id: 'evil', kind: 'path', path: repo.dir }]);
    const { out, err } = await cli(['build', '--config', config, '--out', tempDir('nnb-cat-'), '--no-validate']);
    expect(err).toMatch(/syntax-error/);
    for (const text of [out, err]) {
      expect(text).not.toMatch(WORKFLOW_COMMAND);
      expect(text).not.toMatch(RAW_CONTROL);
    }
    expect(err).toContain('\\r::error file=evil.py'); // escaped, still readable
  }, 120_000);

  it('`nnblocks sources` escapes file names and a checkout’s origin URL; --json stays JSON', async () => {
    const repo = gitRepo({ 'pkg/__init__.py': '', [`pkg/x${INJECTION.replace(/[/]/g, '')}.py`]: 'A = 1\n' });
    gitIn(repo.dir, 'config', 'remote.origin.url', `https://github.com/o/r${INJECTION}`);
    const config = writeConfig([{ id: 'evil', kind: 'path', path: repo.dir }]);
    const { out, err } = await cli(['sources', '--config', config]);
    expect(err).toMatch(/repository-url-refused/);
    expect(err).toMatch(/bad-name/);
    for (const text of [out, err]) {
      expect(text).not.toMatch(WORKFLOW_COMMAND);
      expect(text).not.toMatch(RAW_CONTROL);
    }
    const json = await cli(['sources', '--config', config, '--json']);
    expect(JSON.parse(json.out).snapshots[0].skipped[0].path).toContain('\r::error');
  });
});
