// pip's requirements file format, read as pip reads it (pip/_internal/req/req_file.py) but without acting on
// anything: lines are joined at a trailing `\`, comments (`#` at the start or after whitespace) dropped, options
// told apart. `-r other.txt` becomes an include for the caller to follow (or not); index options (`-i`,
// `--extra-index-url`, `-f`), `-e`, `-c`, URLs and local paths become skipped entries with the reason — nnblocks
// installs named requirements from its own index only, so a file cannot point it at another server.
import type { Span } from '../../contract/diagnostics.ts';

export type PipEntry =
  | { kind: 'requirement'; text: string; line: number; span: Span }
  | { kind: 'include'; path: string; line: number; span: Span }
  | { kind: 'skipped'; text: string; why: string; line: number; span: Span };

interface Physical {
  text: string;
  line: number;
  startByte: number;
  endByte: number;
}

/** pip's COMMENT_RE: a `#` at the start of the line or after whitespace starts a comment (`pkg#egg` does not). */
const COMMENT = /(^|\s+)#.*$/;

/** Options that only steer where or how pip downloads; we never follow them. */
const INDEX_OPTIONS = new Set([
  '-i',
  '--index-url',
  '--extra-index-url',
  '--no-index',
  '-f',
  '--find-links',
  '--trusted-host',
  '--pre',
  '--prefer-binary',
  '--only-binary',
  '--no-binary',
  '--require-hashes',
  '--use-feature',
]);

/** The entries of one requirements file's text, in order. */
export function pipEntries(text: string): PipEntry[] {
  const out: PipEntry[] = [];
  for (const logical of joinLines(physicalLines(text))) {
    const line = logical.text.replace(COMMENT, '').trim();
    if (!line) continue;
    const at = {
      line: logical.line,
      span: { startByte: logical.startByte, endByte: logical.endByte, startLine: logical.line, endLine: logical.last },
    };
    if (line.startsWith('-')) out.push(optionLine(line, at));
    else out.push(requirementLine(line, at));
  }
  return out;
}

type At = { line: number; span: Span };

function optionLine(line: string, at: At): PipEntry {
  // `-r file`, `-rfile`, `-r=file`, `--requirement file`, `--requirement=file`
  const m = line.startsWith('--') ? /^(--[A-Za-z0-9-]+)(?:=|\s+|$)(.*)$/.exec(line) : /^(-.)=?\s*(.*)$/.exec(line);
  const option = m?.[1] ?? line;
  const value = unquote((m?.[2] ?? '').trim().split(/\s+/)[0] ?? '');
  if (option === '-r' || option === '--requirement') return { kind: 'include', path: value, ...at };
  const why =
    option === '-c' || option === '--constraint'
      ? 'a constraints file limits versions, it declares no requirement'
      : option === '-e' || option === '--editable'
        ? 'an editable install of a folder or repository, not a named requirement'
        : INDEX_OPTIONS.has(option)
          ? 'a pip index option: nnblocks installs from its own index settings only'
          : 'an unknown pip option';
  return { kind: 'skipped', text: line, why, ...at };
}

function requirementLine(line: string, at: At): PipEntry {
  // pip's break_args_options: the requirement ends at the first space-separated token starting with `-`
  // (`pkg==1.0 --hash=sha256:...`); hashes and per-requirement options steer pip, they declare nothing.
  const tokens = line.split(' ');
  const cut = tokens.findIndex((t) => t.startsWith('-'));
  const text = (cut < 0 ? tokens : tokens.slice(0, cut)).join(' ').trim();
  const head = text.split(';')[0].trim();
  let why: string | undefined;
  if (/^(git|hg|svn|bzr)\+/i.test(head) || /^[a-z][a-z0-9+.-]*:/i.test(head)) {
    const egg = /[#&]egg=([A-Za-z0-9._-]+)/.exec(head);
    why = `a URL, not a named requirement${egg ? ` (it would install ${egg[1]})` : ''}: nothing is downloaded`;
  } else if (/^(\.|\/|~)/.test(head) || (/[\\/]/.test(head) && !head.includes('@')))
    why = 'a local path, not a named requirement';
  else if (/\.(whl|tar\.gz|tgz|tar\.bz2|tar\.xz|zip)$/i.test(head)) why = 'an archive file, not a named requirement';
  else if (text.includes('${')) why = 'it uses an environment variable (`${...}`), which nnblocks never expands';
  if (why) return { kind: 'skipped', text, why, ...at };
  return { kind: 'requirement', text, ...at };
}

function unquote(s: string): string {
  return /^(['"]).*\1$/.test(s) ? s.slice(1, -1) : s;
}

function physicalLines(text: string): Physical[] {
  const out: Physical[] = [];
  const parts = text.split(/(\r\n|\n|\r)/); // lines at even indices, their line breaks at odd ones
  let byte = 0;
  for (let i = 0; i < parts.length; i += 2) {
    const len = Buffer.byteLength(parts[i]);
    out.push({ text: parts[i], line: i / 2 + 1, startByte: byte, endByte: byte + len });
    byte += len + (parts[i + 1]?.length ?? 0);
  }
  return out;
}

type Logical = Physical & { last: number };

/** pip's join_lines: a line ending in `\` continues on the next, unless it is a comment line. */
function joinLines(lines: Physical[]): Logical[] {
  const out: Logical[] = [];
  let pending: Logical | undefined;
  for (const l of lines) {
    const comment = /^\s*#/.test(l.text);
    const continues = l.text.endsWith('\\') && !comment;
    // a comment stays a comment after joining; a continued line loses its backslash
    const text = comment ? ' ' + l.text : continues ? l.text.slice(0, -1) : l.text;
    const joined: Logical = pending
      ? { ...pending, text: pending.text + text, endByte: l.endByte, last: l.line }
      : { ...l, text, last: l.line };
    if (continues) pending = joined;
    else {
      out.push(joined);
      pending = undefined;
    }
  }
  if (pending) out.push(pending);
  return out;
}
