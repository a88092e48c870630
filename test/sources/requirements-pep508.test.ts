// PEP 508 requirement strings, PEP 440 versions and environment markers as the declared-requirements reader reads
// them (pipeline/sources/requirements/{pep508,pep440,markers}.ts): one line each, with why.
import { describe, expect, it } from 'vitest';
import { evaluateMarker, linuxEnvironment, parseMarker } from '../../pipeline/sources/requirements/markers.ts';
import { compareVersions, parseVersion } from '../../pipeline/sources/requirements/pep440.ts';
import { normalizeName, parseRequirement } from '../../pipeline/sources/requirements/pep508.ts';
import { parseToml } from '../../pipeline/sources/requirements/toml.ts';

describe('PEP 508 requirements', () => {
  it.each([
    ['numpy', { name: 'numpy', extras: [], specifier: '' }],
    ['PyYAML>=5.3.1', { rawName: 'PyYAML', name: 'pyyaml', specifier: '>=5.3.1' }],
    ['ruamel.yaml', { name: 'ruamel-yaml' }], // PEP 503: dots are separators too
    ['opencv_python__headless', { name: 'opencv-python-headless' }], // runs of separators are one
    ['numpy >= 1.18.5 , < 1.24.0', { specifier: '>=1.18.5,<1.24.0' }],
    ['torch (>=1.7, !=1.12.0)', { specifier: '>=1.7,!=1.12.0' }], // the old parenthesised form
    ['requests[socks, Security]~=2.31', { extras: ['socks', 'security'], specifier: '~=2.31' }],
    ['pkg==1.*', { specifier: '==1.*' }],
    ['torch==2.1.0+cu118', { specifier: '==2.1.0+cu118' }], // a local version with ==
    ['weird===anything-goes', { specifier: '===anything-goes' }],
    ["regex;sys_platform=='win32'", { name: 'regex', markerText: "sys_platform=='win32'" }],
    [
      'x @ https://e.org/x.zip ; python_version >= "3"',
      { url: 'https://e.org/x.zip', markerText: 'python_version >= "3"' },
    ],
  ])('%s', (text, expected) => expect(parseRequirement(text)).toMatchObject(expected));

  it.each([
    ['', /starts with a distribution name/],
    ['-numpy', /starts with a distribution name/],
    ['numpy>=', /is not a version/],
    ['numpy 1.20', /expected a version operator/],
    ['numpy>=1.20.*', /is not a version >= accepts/], // `.*` only with == and !=
    ['numpy~=1', /is not a version ~= accepts/], // ~= needs two release segments
    ['numpy>=1.0+local', /is not a version >= accepts/], // local versions only with == and !=
    ['numpy[extra', /not closed/],
    ['numpy; os_name', /expected a comparison operator/],
    ['numpy; nonsense == "1"', /unknown marker variable/],
    ['numpy; python_version >= "3" and', /ends early/],
    ['numpy; (python_version >= "3"', /unbalanced/],
    ['foo bar', /expected a version operator/],
    ['\u0000\u0001\u00ff', /starts with a distribution name/], // binary junk: a message, not an exception
  ])('%j is rejected', (text, message) => expect(parseRequirement(text)).toMatch(message));

  it('normalises names per PEP 503', () => {
    expect(normalizeName('Foo.Bar__baz-QUX')).toBe('foo-bar-baz-qux');
  });
});

describe('PEP 440 ordering', () => {
  it.each([
    ['1.0.dev0', '1.0a1'],
    ['1.0a1', '1.0b2'],
    ['1.0rc1', '1.0'],
    ['1.0', '1.0.post1'],
    ['3.8', '3.11'], // numbers, not strings
    ['1!9.0', '2!0.1'], // epochs first
  ])('%s < %s', (a, b) => expect(compareVersions(parseVersion(a)!, parseVersion(b)!)).toBeLessThan(0));

  it('trailing zeros and local labels do not count', () => {
    expect(compareVersions(parseVersion('3.8')!, parseVersion('3.8.0')!)).toBe(0);
    expect(compareVersions(parseVersion('2.1.0+cu118')!, parseVersion('2.1')!)).toBe(0);
  });
});

describe('markers for Linux x86_64, Python 3.11', () => {
  const env = linuxEnvironment('3.11');
  const evaluate = (text: string, e = env) => {
    const m = parseMarker(text);
    if (typeof m === 'string') throw new Error(m);
    return evaluateMarker(m, e);
  };
  it.each([
    ['python_version < "3.8"', false], // compared as versions: 3.11 is not below 3.8
    ['python_version >= "3.8"', true],
    ['python_version == "3.*"', true], // a wildcard, as a specifier
    ['"3.8" < python_version', true], // the variable may stand on the right
    ['python_version ~= "3.9"', true],
    ['sys_platform == "win32"', false],
    ["sys_platform != 'darwin'", true],
    ['platform_system == "Linux" and platform_machine == "x86_64"', true],
    ['os_name == "nt" or implementation_name == "cpython"', true],
    ['platform_python_implementation == "PyPy"', false],
    ['"linux" in sys_platform', true], // `in` is a substring test
    ['"arm" not in platform_machine', true],
    ['os.name == "posix"', true], // a legacy spelling packaging still accepts
    ['extra == "test"', false], // no extras are asked for
    ['python_full_version >= "3.6.2"', true], // true for every 3.11.x
    ['python_full_version < "3.11.4"', 'unknown'], // depends on the patch release
    ['python_full_version == "3.11.4"', 'unknown'],
    ['python_full_version == "3.10.4"', 'unknown'], // equality is never decided on a range (kept, recorded)
    ['platform_release >= "5.4"', 'unknown'], // the kernel: not ours to know
    ['platform_release >= "5.4" and sys_platform == "win32"', false], // false whatever the kernel
    ['platform_release >= "5.4" or sys_platform == "linux"', true], // true whatever the kernel
    ['platform_release >= "5.4" and sys_platform == "linux"', 'unknown'],
    ['(python_version < "3" or sys_platform == "win32") and os_name == "posix"', false],
  ])('%s → %s', (text, expected) => expect(evaluate(text)).toBe(expected));

  it('the Python version is a parameter; a full one decides python_full_version', () => {
    expect(evaluate('python_version < "3.8"', linuxEnvironment('3.7'))).toBe(true);
    expect(evaluate('python_full_version < "3.11.4"', linuxEnvironment('3.11.2'))).toBe(true);
  });
});

describe('the minimal TOML reader', () => {
  it('reads tables, dotted keys, strings, arrays and inline tables; keeps __proto__ an ordinary key', () => {
    const r = parseToml(
      [
        'a.b = "x\\ty\\u00e9"',
        "c = 'C:\\path'",
        '[t."q k"]',
        'arr = [1, [2, 3], { k = "v" }, ]',
        'ml = """',
        'one \\',
        '   two"""',
        '[[many]]',
        'n = 1',
        '[[many]]',
        'n = 2',
        '[__proto__]',
        'polluted = true',
      ].join('\n'),
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const { __proto__: proto, ...rest } = { ...r.value }; // spread copies __proto__ as an own key
    expect(JSON.parse(JSON.stringify(rest))).toEqual({
      a: { b: 'x\tyé' },
      c: 'C:\\path',
      t: { 'q k': { arr: [1, [2, 3], { k: 'v' }], ml: 'one two' } },
      many: [{ n: 1 }, { n: 2 }],
    });
    expect(Object.keys(r.value)).toContain('__proto__');
    expect({ ...(proto as object) }).toEqual({ polluted: true });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    ['a = "open', 1],
    ['[x]\na = [1, 2', 2],
    ['a = 1 b = 2', 1],
    ['a = "bad \\q escape"', 1],
  ])('%j is an error at line %d', (text, line) => expect(parseToml(text)).toMatchObject({ ok: false, line }));
});
