// Exit codes as the README says: usage errors (commander: unknown option, command or a missing argument)
// exit 2, `--version` prints the package's version, and with `--json` every error is one JSON document on stdout
// (`{"error": {stage, message, hint?, exitCode}}`), the human text still on stderr, the exit code unchanged.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tree.ts';
import { cli } from '../helpers/cli.ts';

const version = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

describe('usage errors exit 2', () => {
  it.each([
    ['an unknown option', ['build', '--bogus'], "error: unknown option '--bogus'"],
    ['an unknown command', ['biuld'], "error: unknown command 'biuld'"],
    ['a missing option argument', ['sources', '--config'], "error: option '-c, --config <file>' argument missing"],
    ['a value outside the choices', ['doctor', '--for', 'x'], "argument 'x' is invalid"],
  ])('%s', async (_, args, message) => {
    const r = await cli(args);
    expect(r.code).toBe(2);
    expect(r.err).toContain(message);
    expect(r.out).toBe('');
  });

  it('--help and --version exit 0; --version prints the package version', async () => {
    expect(await cli(['--version'])).toEqual({ code: 0, out: `${version}\n`, err: '' });
    expect((await cli(['--help'])).code).toBe(0);
    expect((await cli(['build', '--help'])).code).toBe(0);
  });
});

describe('--json errors', () => {
  it('a config error is one JSON document on stdout, exit 2, the text on stderr too', async () => {
    const file = join(tempDir('nnb-cli-'), 'bad.json');
    writeFileSync(file, JSON.stringify({ name: 'x', sources: [{ id: 'a', kind: 'git', url: 'https://h.org/r.git' }] }));
    const r = await cli(['build', '--config', file, '--json']);
    expect(r.code).toBe(2);
    const doc = JSON.parse(r.out) as { error: { stage: string; message: string; hint?: string; exitCode: number } };
    expect(Object.keys(doc)).toEqual(['error']);
    expect(doc.error).toMatchObject({ stage: 'config', exitCode: 2 });
    expect(doc.error.message).toContain('sources[0].ref');
    expect(r.err).toContain('nnblocks config:');
  });

  it('a usage error with --json is one JSON document too', async () => {
    const r = await cli(['sources', '--json', '--bogus']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.out)).toEqual({ error: { stage: 'usage', message: "unknown option '--bogus'", exitCode: 2 } });
  });

  it('without --json, stdout stays empty', async () => {
    const r = await cli(['build', '--config', join(tempDir('nnb-cli-'), 'missing.json')]);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
  });
});
