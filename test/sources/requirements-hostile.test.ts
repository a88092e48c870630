// Declared requirements in hostile trees: nothing outside the source root is read (symlinks, `-r ../..`, absolute
// paths), huge files are refused before reading, fifos never block, binary junk and include cycles end in
// diagnostics, and nothing upstream runs (a setup.py that would write a canary file is only parsed).
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, ftruncateSync, openSync, symlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { declaredRequirements } from '../../pipeline/sources/requirements.ts';
import { py, tempDir, writeTree } from '../helpers/tree.ts';

/** A file of `bytes` bytes, sparse: written at once, costs no disk. Its first line looks like a requirement. */
function bigFile(path: string, bytes: number): void {
  const fd = openSync(path, 'w');
  writeSync(fd, 'numpy\n');
  ftruncateSync(fd, bytes);
  closeSync(fd);
}

const codes = (r: { diagnostics: { code: string }[] }) => r.diagnostics.map((d) => d.code);

describe('hostile requirements trees', () => {
  it('a requirements.txt symlinked to /etc/passwd is refused, not read', () => {
    const root = writeTree({ 'setup.cfg': '[options]\ninstall_requires = file: reqs.txt\n' });
    symlinkSync('/etc/passwd', join(root, 'requirements.txt'));
    symlinkSync('/etc/passwd', join(root, 'reqs.txt'));
    symlinkSync('/etc/hostname', join(root, 'setup.py'));
    const r = declaredRequirements(root);
    expect(r.requirements).toEqual([]);
    expect(r.diagnostics.map((d) => [d.code, d.path])).toEqual([
      ['requirements-file-refused', 'setup.cfg'],
      ['requirements-file-refused', 'setup.py'],
      ['requirements-file-refused', 'requirements.txt'],
    ]);
    expect(r.diagnostics[0].message).toMatch(/outside the source/);
    // nothing of /etc/passwd leaks into a message (`root:x:0:0` would be its first line)
    expect(JSON.stringify(r)).not.toMatch(/root:x:/);
  });

  it('a symlinked folder leading out of the root is refused; a symlink inside the root is followed', () => {
    const root = writeTree({ 'requirements/base.txt': 'rich\n', 'requirements.txt': '-r etc/passwd\n' });
    symlinkSync('/etc', join(root, 'etc'));
    symlinkSync('base.txt', join(root, 'requirements/runtime.txt'));
    const r = declaredRequirements(root);
    expect(r.requirements.map((x) => [x.name, x.from])).toEqual([['rich', 'requirements/runtime.txt']]);
    expect(codes(r)).toEqual(['requirements-file-refused']);
  });

  it('-r ../../etc/passwd, an absolute path and a URL are refused by their text', () => {
    const root = writeTree({
      'requirements.txt': '-r ../../etc/passwd\n-r /etc/passwd\n-r https://evil.example/r.txt\nrich\n',
      'requirements/runtime.txt': '-r ../../../etc/passwd\n',
    });
    const r = declaredRequirements(root);
    expect(r.requirements.map((x) => x.name)).toEqual(['rich']);
    expect(r.diagnostics.map((d) => [d.code, d.span?.startLine, d.message.replace(/.*: /, '')])).toEqual([
      ['requirements-file-refused', 1, 'a path outside the source'],
      ['requirements-file-refused', 2, 'an absolute path'],
      ['requirements-file-refused', 3, 'a URL (nothing is downloaded)'],
      ['requirements-file-refused', 1, 'a path outside the source'],
    ]);
  });

  it('setup.py naming a file outside the root is refused', () => {
    const root = writeTree({ 'setup.py': "setup(install_requires=open('../../../etc/passwd').readlines())\n" });
    expect(codes(declaredRequirements(root))).toEqual(['requirements-file-refused']);
  });

  it('a 50 MB requirements file (and setup.py) is refused before anything is read', () => {
    const root = writeTree({});
    bigFile(join(root, 'requirements.txt'), 50 << 20);
    bigFile(join(root, 'setup.py'), 50 << 20);
    const r = declaredRequirements(root);
    expect(r.requirements).toEqual([]);
    expect(r.diagnostics.map((d) => d.message)).toEqual([
      expect.stringMatching(/setup\.py is not read: 52428800 bytes, over the 1048576-byte cap/),
      expect.stringMatching(/requirements\.txt is not read: 52428800 bytes, over/),
    ]);
  });

  it('the size cap is a parameter', () => {
    const root = writeTree({ 'requirements.txt': 'numpy\n'.repeat(100) });
    expect(codes(declaredRequirements(root, { maxFileBytes: 100 }))).toEqual(['requirements-file-refused']);
  });

  it('a fifo never blocks the reading', () => {
    const root = writeTree({});
    execFileSync('mkfifo', [join(root, 'requirements.txt')]);
    expect(codes(declaredRequirements(root))).toEqual(['requirements-file-refused']);
  });

  it('a folder named like a requirements file is refused, not walked', () => {
    const root = writeTree({ 'requirements.txt/x': 'numpy\n' });
    expect(codes(declaredRequirements(root))).toEqual(['requirements-file-refused']);
  });

  it('binary junk: a file with NUL bytes is refused; invalid UTF-8 only costs its lines', () => {
    const root = writeTree({
      'requirements.txt': Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x00, 0x00, 0x0a]),
      'requirements/runtime.txt': Buffer.concat([
        Buffer.from('rich\n'),
        Buffer.from([0xff, 0xfe, 0x0a]),
        Buffer.from('numpy\n'),
      ]),
      'pyproject.toml': Buffer.from([0xff, 0xfe, 0x5b, 0x00]),
    });
    const r = declaredRequirements(root);
    expect(r.requirements.map((x) => x.name)).toEqual(['rich', 'numpy']);
    expect(r.diagnostics.map((d) => [d.code, d.path])).toEqual([
      ['requirements-file-refused', 'pyproject.toml'],
      ['requirements-file-refused', 'requirements.txt'],
      ['requirement-invalid', 'requirements/runtime.txt'],
    ]);
  });

  it('a cycle of -r includes is read once and reported', () => {
    const root = writeTree({
      'requirements.txt': '-r requirements/a.txt\nnumpy\n',
      'requirements/a.txt': '-r b.txt\nrich\n',
      'requirements/b.txt': '-r a.txt\n-r ../requirements.txt\nscipy\n',
    });
    const r = declaredRequirements(root);
    expect(r.requirements.map((x) => x.name)).toEqual(['scipy', 'rich', 'numpy']);
    expect(r.diagnostics.map((d) => [d.code, d.path])).toEqual([
      ['requirements-include-cycle', 'requirements/b.txt'],
      ['requirements-include-cycle', 'requirements/b.txt'],
    ]);
  });

  it('a deep chain of includes stops at the file limit', () => {
    const tree: Record<string, string> = {};
    for (let i = 0; i < 80; i++) tree[`requirements/r${i}.txt`] = `-r r${i + 1}.txt\npkg${i}\n`;
    const root = writeTree({ ...tree, 'requirements.txt': '-r requirements/r0.txt\n' });
    const r = declaredRequirements(root);
    expect(r.requirements.length).toBe(63);
    expect(codes(r)).toEqual(['requirements-file-refused']);
  });

  it('a root that is no folder is a bug of the caller: an NnblocksError with a hint', () => {
    expect(() => declaredRequirements(join(tempDir(), 'missing'))).toThrow(/is not a folder/);
  });

  it('setup.py is parsed, never run: its side effects do not happen', () => {
    const canary = join(tempDir(), 'ran');
    const root = writeTree({
      'setup.py': py`
        import pathlib
        pathlib.Path(${JSON.stringify(canary)}).write_text('ran')
        def reqs():
            pathlib.Path(${JSON.stringify(canary)}).write_text('ran')
            return ['evil']
        setup(install_requires=reqs())
      `,
    });
    const r = declaredRequirements(root);
    expect(r.requirements).toEqual([]);
    expect(codes(r)).toEqual(['requirements-not-static']);
    expect(existsSync(canary)).toBe(false);
  });

  it('a huge literal list and deep nesting are read without exceptions', () => {
    const many = Array.from({ length: 5000 }, (_, i) => `'p${i}'`).join(', ');
    const deep = '['.repeat(500) + ']'.repeat(500);
    const root = writeTree({ 'setup.py': `setup(install_requires=[${many}])\nx = ${deep}\n` });
    expect(declaredRequirements(root).requirements).toHaveLength(5000);
  });
});
