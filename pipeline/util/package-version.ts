// The version of nnblocks itself (package.json): published in build-info.json and printed by `nnblocks --version`.
import { readFileSync } from 'node:fs';

export function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string })
    .version;
}
