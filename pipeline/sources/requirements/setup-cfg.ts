// setup.cfg's runtime requirements: `[options] install_requires`, an INI value read as configparser and setuptools
// read it — continuation lines are indented, full-line `#`/`;` comments are dropped, a one-line value splits at
// `;` (setuptools' own rule, which is why a marker there must go on its own line), and `file: a.txt, b.txt` names
// requirements files.
import type { Span } from '../../contract/diagnostics.ts';
import type { RequirementSink } from './types.ts';

const FILE = 'setup.cfg';

interface ValueLine {
  text: string;
  span: Span;
}

export function readSetupCfg(sink: RequirementSink): void {
  const text = sink.metadataText(FILE);
  if (text === undefined) return;
  const value = iniValue(text, 'options', new Set(['install_requires', 'install-requires']));
  if (!value) return;
  const joined = value
    .map((l) => l.text)
    .join('\n')
    .trim();
  if (joined.startsWith('file:')) {
    for (const f of joined.slice(5).split(','))
      if (f.trim()) sink.namedFile(f.trim(), { file: FILE, span: value[0].span });
    return;
  }
  const lines = value.filter((l) => l.text.trim());
  const items = lines.length === 1 ? lines[0].text.split(';').map((text) => ({ text, span: lines[0].span })) : lines;
  for (const item of items) {
    const spec = item.text.replace(/(^|\s+)#.*$/, '').trim();
    if (spec) sink.declare(spec, { file: FILE, span: item.span });
  }
}

/** The lines of `key`'s value in `[section]` (keys compare lower-cased, as configparser's optionxform does). */
function iniValue(text: string, section: string, keys: Set<string>): ValueLine[] | undefined {
  let current = '';
  let out: ValueLine[] | undefined;
  let collecting = false;
  let byte = 0;
  const lines = text.split('\n');
  for (let n = 0; n < lines.length; n++) {
    const raw = lines[n].replace(/\r$/, '');
    const span = { startByte: byte, endByte: byte + Buffer.byteLength(raw), startLine: n + 1, endLine: n + 1 };
    byte += Buffer.byteLength(lines[n]) + 1;
    const stripped = raw.trim();
    if (/^[#;]/.test(stripped)) continue;
    if (collecting && (/^\s/.test(raw) || !stripped)) {
      out!.push({ text: stripped, span });
      continue;
    }
    collecting = false;
    const header = /^\[([^\]]*)\]/.exec(raw);
    if (header) {
      current = header[1];
      continue;
    }
    const kv = /^([^=:]+?)\s*[=:]\s?(.*)$/.exec(raw);
    if (kv && current === section && keys.has(kv[1].trim().toLowerCase())) {
      out = [{ text: kv[2].trim(), span }];
      collecting = true;
    }
  }
  return out;
}
