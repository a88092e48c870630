// Tiny Python distributions written by the tests themselves, into a local "wheelhouse" that pip reads with
// `PIP_FIND_LINKS` and `PIP_NO_INDEX=1`: the environment tests install real packages without any network.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { tempDir, writeTree, type Tree } from '../helpers/tree.ts';

/** Writes `name-version-py3-none-any.whl` with `files` (paths inside the wheel → contents) into `dir`. */
export function writeWheel(dir: string, name: string, version: string, files: Record<string, string>): string {
  const dist = `${name.replace(/-/g, '_')}-${version}`;
  const all: Record<string, string> = {
    ...files,
    [`${dist}.dist-info/METADATA`]: `Metadata-Version: 2.1\nName: ${name}\nVersion: ${version}\n`,
    [`${dist}.dist-info/WHEEL`]:
      'Wheel-Version: 1.0\nGenerator: nnblocks-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n',
  };
  const file = join(dir, `${dist}-py3-none-any.whl`);
  // RECORD lists every file; hashes may be left empty for RECORD itself (PEP 376/427).
  const script = `
import base64, hashlib, json, sys, zipfile
files = json.loads(sys.argv[2]); dist = sys.argv[3]
rows = []
with zipfile.ZipFile(sys.argv[1], "w") as z:
    for path, text in files.items():
        data = text.encode()
        z.writestr(path, data)
        h = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        rows.append(f"{path},sha256={h},{len(data)}")
    rows.append(f"{dist}.dist-info/RECORD,,")
    z.writestr(f"{dist}.dist-info/RECORD", "\\n".join(rows) + "\\n")
`;
  execFileSync('/usr/bin/python3', ['-c', script, file, JSON.stringify(all), dist]);
  return file;
}

/** Writes a source distribution `name-version.tar.gz` (a setup.py project, no pyproject.toml) into `dir`. */
export function writeSdist(dir: string, name: string, version: string, tree: Tree): string {
  const top = `${name}-${version}`;
  const root = tempDir('nnb-sdist-');
  writeTree(
    {
      [`${top}/PKG-INFO`]: `Metadata-Version: 2.1\nName: ${name}\nVersion: ${version}\n`,
      ...Object.fromEntries(Object.entries(tree).map(([p, c]) => [`${top}/${p}`, c])),
    },
    root,
  );
  const file = join(dir, `${top}.tar.gz`);
  execFileSync('tar', ['-czf', file, '-C', root, top]);
  return file;
}
