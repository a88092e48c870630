// The command list that `nnblocks --help` shows without loading a command (pipeline/cli/commands/index.ts): each
// entry says what its module says, the help reads the same as with every module loaded, and argv picks the module.
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../pipeline/cli/main.ts';
import type { CliEnv } from '../../pipeline/cli/env.ts';
import { processIO } from '../../pipeline/cli/io.ts';
import { commandTerm, commands, registerSummary, selectedCommand } from '../../pipeline/cli/commands/index.ts';

const env: CliEnv = { io: processIO, setExitCode: () => {} };
const program = () => new Command('nnblocks').configureHelp({ subcommandTerm: commandTerm });

describe('the lazy command list', () => {
  it.each(commands.map((c) => [c.name, c] as const))('%s: summary and arguments are its module’s', async (name, c) => {
    const real = program();
    (await c.load())(real, env);
    const cmd = real.commands.find((x) => x.name() === name);
    expect(cmd, `the module registers \`${name}\``).toBeDefined();
    const stub = registerSummary(program(), c);
    expect(stub.description(), 'the entry’s summary is the module’s .description()').toBe(cmd!.description());
    expect(commandTerm(stub), 'the entry’s args are the module’s .argument()s').toBe(commandTerm(cmd!));
  });

  it('the program’s help is the same with summaries as with every module loaded', async () => {
    const loaded = program();
    for (const c of commands) (await c.load())(loaded, env);
    const listed = program();
    for (const c of commands) registerSummary(listed, c);
    expect(listed.helpInformation()).toBe(loaded.helpInformation());
  });

  it('argv picks the command to load: a run, `help NAME`, nothing for the program’s help or a typo', () => {
    expect(selectedCommand(['build', '--out', 'x'])?.name).toBe('build');
    expect(selectedCommand(['--json', 'blocks'])?.name).toBe('blocks');
    expect(selectedCommand(['help', 'merge'])?.name).toBe('merge');
    expect(selectedCommand(['merge', '--help'])?.name).toBe('merge');
    expect(selectedCommand(['--help'])).toBeUndefined();
    expect(selectedCommand([])).toBeUndefined();
    expect(selectedCommand(['biuld'])).toBeUndefined();
  });

  it('a command’s own help shows its options; a typo is suggested from the summaries', async () => {
    const run = async (argv: string[]) => {
      let out = '';
      let err = '';
      const code = await runCli(argv, () => ({
        out: (t) => (out += t),
        err: (t) => (err += t),
        isTTY: false,
        ci: true,
        json: false,
      }));
      return { code, out, err };
    };
    const merge = await run(['help', 'merge']);
    expect(merge.out).toContain('Usage: nnblocks merge [options] <parts...>');
    expect(merge.out).toContain('--out <dir>');
    const build = await run(['build', '--help']);
    expect(build.code).toBe(0);
    expect(build.out).toContain('--shard <K/N>');
    const typo = await run(['biuld']);
    expect(typo.code).not.toBe(0);
    expect(typo.err).toContain('(Did you mean build?)');
  });
});
