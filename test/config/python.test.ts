// Python interpreter discovery against the real interpreters of this machine (Debian's /usr/bin/python3 imports torch).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NnblocksError } from '../../pipeline/contract/diagnostics.ts';
import { findPython, lookupPython } from '../../pipeline/config/python.ts';
import { tempDir } from '../helpers/tree.ts';

describe('python discovery', () => {
  it('without config or env, takes the first default that imports torch and says what it tried', () => {
    const r = lookupPython({}, {});
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.python.torchVersion).toMatch(/^\d+\.\d+/);
    expect(r.python.version).toMatch(/^3\.\d+\.\d+$/);
    expect(typeof r.python.cudaAvailable).toBe('boolean');
    // The candidates are tried in order and the last one tried is the winner.
    expect(r.python.tried.map((t) => t.candidate)).toEqual(
      ['python3', '/usr/bin/python3'].slice(0, r.python.tried.length),
    );
    expect(r.python.tried.at(-1)!.ok).toBe(true);
    expect(r.python.tried.slice(0, -1).every((t) => !t.ok && t.error)).toBe(true);
  });

  it('NNBLOCKS_PYTHON wins over the defaults', () => {
    const r = lookupPython({}, { NNBLOCKS_PYTHON: '/usr/bin/python3' });
    expect(r.ok && r.python.tried).toEqual([{ candidate: '/usr/bin/python3', from: 'env NNBLOCKS_PYTHON', ok: true }]);
  });

  it('an explicit interpreter that does not work is reported, never silently replaced', () => {
    const r = lookupPython({ python: '/nonexistent/python3' }, { NNBLOCKS_PYTHON: '/usr/bin/python3' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.tried).toEqual([{ candidate: '/nonexistent/python3', from: 'config', ok: false, error: 'not found' }]);
    expect(r.diagnostic).toMatchObject({ code: 'python-not-found', severity: 'error' });
    expect(r.diagnostic.message).toContain('/nonexistent/python3 (config): not found');
    expect(r.diagnostic.hint).toContain('apt-get install -y python3-torch python3-torchvision');
  });

  it('an interpreter without torch names the import error', () => {
    // A real Python whose site-packages are switched off (-S), so `import torch` fails the way it does in a bare venv.
    const dir = tempDir('nnb-py-');
    const wrapper = join(dir, 'python-without-site');
    writeFileSync(wrapper, '#!/bin/sh\nexec /usr/bin/python3 -S "$@"\n', { mode: 0o755 });
    const r = lookupPython({ python: wrapper }, {});
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.tried[0].error).toMatch(/ModuleNotFoundError: No module named 'torch'/);
    expect(() => findPython({ python: wrapper })).toThrow(NnblocksError);
  });
});
