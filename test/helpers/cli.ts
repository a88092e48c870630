// Runs the real CLI in this process (`runCli`, the commander program every command goes through), as CI would see
// it (no TTY, `CI` set): its exit code and everything it wrote on stdout and stderr.
import { runCli } from '../../pipeline/cli/main.ts';
import type { CliIO } from '../../pipeline/cli/io.ts';

export async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io = (json: boolean): CliIO => ({
    out: (t) => void (out += t),
    err: (t) => void (err += t),
    isTTY: false,
    ci: true,
    json,
  });
  const code = await runCli(args, io);
  return { code, out, err };
}
