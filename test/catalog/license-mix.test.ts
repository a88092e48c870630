// The licence-mix rule: which license of another source's code, inlined into a block, the record flags.
import { describe, expect, it } from 'vitest';
import { dependencySources, licenseFlag } from '../../pipeline/catalog/license-mix.ts';

describe('licence mixes', () => {
  const cases: [string, string, string | undefined, string][] = [
    ['GPL-3.0', 'MIT', 'copyleft', 'GPL code makes the assembled MIT block GPL'],
    ['AGPL-3.0', 'Apache-2.0', 'copyleft', 'yolov5 code in an Apache block'],
    ['LGPL-2.1', 'BSD-3-Clause', 'copyleft', 'weak copyleft still binds the copied file'],
    ['MPL-2.0', 'MIT', 'copyleft', 'file-level copyleft: the file is the block'],
    ['CC-BY-NC-4.0', 'Apache-2.0', 'non-commercial', 'mae code in an Apache block'],
    ['CC-BY-NC-SA-4.0', 'MIT', 'non-commercial', 'the stronger restriction is the one shown'],
    ['NOASSERTION', 'MIT', 'unknown', 'no license found: nobody can tell what applies'],
    ['GPL-3.0', 'GPL-3.0', undefined, 'same license as the block: nothing mixes'],
    ['Apache-2.0', 'MIT', undefined, 'permissive into permissive'],
    ['MIT', 'GPL-3.0', undefined, 'permissive code into a copyleft block'],
  ];
  for (const [license, own, flag, why] of cases) {
    it(`${license} into ${own}: ${flag ?? 'no flag'} — ${why}`, () => {
      expect(licenseFlag(license, own)).toBe(flag);
    });
  }

  it('lists the own source first, then the others by id, each once', () => {
    const licenses: Record<string, string> = { mmcv: 'Apache-2.0', mmengine: 'Apache-2.0', yolov7: 'GPL-3.0' };
    expect(dependencySources('mmcv', ['mmcv', 'yolov7', 'mmengine', 'yolov7'], (id) => licenses[id])).toEqual([
      { id: 'mmcv', license: 'Apache-2.0' },
      { id: 'mmengine', license: 'Apache-2.0' },
      { id: 'yolov7', license: 'GPL-3.0', flag: 'copyleft' },
    ]);
  });
});
