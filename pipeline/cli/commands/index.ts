// The list of CLI commands, as `nnblocks --help` lists them: name, arguments and one-line summary, and the module
// that registers the command (its options and action), imported only when that command runs or shows its own help.
// So `nnblocks --help` loads no stage, no SQLite, no tree-sitter. test/cli/lazy-commands.test.ts checks that each
// summary and argument list here is the one its module declares.
import type { Command } from 'commander';
import type { RegisterCommand } from '../env.ts';

export interface CommandEntry {
  name: string;
  /** The module's `.description(...)`, word for word. */
  summary: string;
  /** The module's arguments, as commander writes them (`<parts...>`). */
  args?: string;
  load(): Promise<RegisterCommand>;
}

export const commands: CommandEntry[] = [
  {
    name: 'sources',
    summary: 'fetch or update the sources of the corpus config and list them',
    load: async () => (await import('./sources.ts')).registerSources,
  },
  {
    name: 'doctor',
    summary:
      'check node, git, python + torch and bubblewrap (and, for the tests, chromium and shellcheck); print the command that fixes what is missing',
    load: async () => (await import('./doctor.ts')).registerDoctor,
  },
  {
    name: 'environment',
    summary: 'create (once) and show the validation environment: python, torch, CUDA, installed requirements',
    load: async () => (await import('./environment.ts')).registerEnvironment,
  },
  {
    name: 'index',
    summary: 'parse every Python file of the corpus into the SQLite index (incremental)',
    load: async () => (await import('./index-cmd.ts')).registerIndex,
  },
  {
    name: 'blocks',
    summary: 'list the blocks: nn.Module subclasses with a usable forward',
    load: async () => (await import('./blocks.ts')).registerBlocks,
  },
  {
    name: 'extract',
    summary:
      'write the blocks as one importable package (one block: one standalone module), local use only, and manifest.json',
    args: '[names...]',
    load: async () => (await import('./extract.ts')).registerExtract,
  },
  {
    name: 'validate',
    summary: 'validate blocks in the sandbox: parse, compile, import, build, forward, backward',
    load: async () => (await import('./validate.ts')).registerValidate,
  },
  {
    name: 'dedup',
    summary: 'de-duplicate blocks at three levels and print the uniqueness table',
    load: async () => (await import('./dedup.ts')).registerDedup,
  },
  {
    name: 'build',
    summary: 'run every stage and write the catalog data (neutral specs + provenance, no upstream code)',
    load: async () => (await import('./build.ts')).registerBuild,
  },
  {
    name: 'merge',
    summary: 'merge the partial results of `nnblocks build --shard K/N` into the catalog',
    args: '<parts...>',
    load: async () => (await import('./merge.ts')).registerMerge,
  },
  {
    name: 'changes',
    summary: 'write the change feed (changes.json, changes.atom) against the previous published catalog',
    load: async () => (await import('./changes.ts')).registerChanges,
  },
  {
    name: 'preview',
    summary: 'serve a built site on localhost (default: the site folder of the config)',
    args: '[dir]',
    load: async () => (await import('./preview.ts')).registerPreview,
  },
];

/** The command `argv` runs or asks help for (`nnblocks build ...`, `nnblocks help build`); undefined for none. */
export function selectedCommand(argv: string[]): CommandEntry | undefined {
  const words = argv.filter((a) => !a.startsWith('-'));
  const name = words[0] === 'help' ? words[1] : words[0];
  return commands.find((c) => c.name === name);
}

/** A command that is not loaded: what the program's help lists for it, and a name commander can suggest. */
export function registerSummary(program: Command, entry: CommandEntry): Command {
  const cmd = program.command(entry.name).description(entry.summary);
  if (entry.args) cmd.argument(entry.args);
  return cmd;
}

/** The program's help lists `name [options] <args>` for loaded and summary commands alike (every command has options). */
export function commandTerm(cmd: Command): string {
  return `${cmd.name()} ${cmd.usage()}`;
}
