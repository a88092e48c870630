// License detection: a LICENSE/COPYING file's text first, else a Debian copyright file, else package metadata
// (`License-Expression`, `License:`, classifiers) mapped to SPDX; the method always says which and whether it mapped.
// License files come from upstream trees: they are read through readUpstreamText (no symlinks, regular files only,
// bounded), and a file that is refused is a diagnostic. See docs/sources.md ("Hostile sources").
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Diagnostic } from '../contract/diagnostics.ts';
import { readUpstreamText } from './read-upstream.ts';
import type { LicenseInfo } from './types.ts';

/** Phrases that identify a license text; the first match wins, so more specific texts come first. */
const TEXT_RULES: [string, (t: string) => boolean][] = [
  ['AGPL-3.0', (t) => t.includes('gnu affero general public license')],
  ['LGPL-3.0', (t) => t.includes('gnu lesser general public license') && t.includes('version 3')],
  [
    'LGPL-2.1',
    (t) =>
      (t.includes('gnu lesser general public license') || t.includes('gnu library general public license')) &&
      t.includes('version 2'),
  ],
  ['GPL-3.0', (t) => t.includes('gnu general public license') && t.includes('version 3')],
  ['GPL-2.0', (t) => t.includes('gnu general public license') && t.includes('version 2')],
  ['Apache-2.0', (t) => t.includes('apache license') && t.includes('version 2.0')],
  ['MPL-2.0', (t) => t.includes('mozilla public license') && t.includes('2.0')],
  ['CC-BY-NC-SA-4.0', (t) => t.includes('attribution-noncommercial-sharealike 4.0')],
  ['CC-BY-NC-4.0', (t) => t.includes('attribution-noncommercial 4.0')],
  ['CC-BY-4.0', (t) => t.includes('attribution 4.0 international')],
  ['BSL-1.0', (t) => t.includes('boost software license')],
  ['Unlicense', (t) => t.includes('this is free and unencumbered software')],
  ['ISC', (t) => t.includes('permission to use, copy, modify, and/or distribute this software for any purpose')],
  ['MIT', (t) => t.includes('permission is hereby granted, free of charge')],
  [
    'BSD-3-Clause',
    (t) =>
      t.includes('redistribution and use in source and binary forms') &&
      /neither the names?|names of (its|the) contributors/.test(t),
  ],
  ['BSD-2-Clause', (t) => t.includes('redistribution and use in source and binary forms')],
];

/** SPDX id of a license text, or null. An `SPDX-License-Identifier:` line wins over phrase matching. */
export function spdxFromText(text: string): string | null {
  const tag = /SPDX-License-Identifier:\s*([A-Za-z0-9.+-]+)/.exec(text);
  if (tag) return tag[1];
  const t = text.toLowerCase().replace(/\s+/g, ' ');
  return TEXT_RULES.find(([, test]) => test(t))?.[0] ?? null;
}

/** Short names in package metadata and Debian copyright files → SPDX. `mapped` marks a lossy guess (BSD → 3-Clause). */
const NAME_MAP: [RegExp, string, boolean][] = [
  [/^(mit|mit license|expat)$/i, 'MIT', false],
  [/^(bsd|bsd license|new bsd|new bsd license|modified bsd|bsd-style)$/i, 'BSD-3-Clause', true],
  [/^(bsd[- ]?3[- ]?clause|3-clause bsd|bsd 3-clause license)$/i, 'BSD-3-Clause', false],
  [/^(bsd[- ]?2[- ]?clause|2-clause bsd|simplified bsd)$/i, 'BSD-2-Clause', false],
  [/^(apache|apache software license)$/i, 'Apache-2.0', true],
  [/^(apache[- ]?2(\.0)?|apache license,? (version )?2\.0|apache license 2\.0)$/i, 'Apache-2.0', false],
  [/^(gplv?3|gpl-3(\.0)?(\+|-only|-or-later)?|gnu general public license v3.*)$/i, 'GPL-3.0', false],
  [/^(gplv?2|gpl-2(\.0)?(\+|-only|-or-later)?|gnu general public license v2.*)$/i, 'GPL-2.0', false],
  [/^(lgplv?3|lgpl-3(\.0)?.*)$/i, 'LGPL-3.0', false],
  [/^(lgplv?2\.1|lgpl-2\.1.*)$/i, 'LGPL-2.1', false],
  [/^(mpl[- ]?2(\.0)?|mozilla public license 2\.0.*)$/i, 'MPL-2.0', false],
  [/^cc-by-nc-4\.0$/i, 'CC-BY-NC-4.0', false],
];

export function spdxFromName(name: string): { spdx: string; mapped: boolean } | null {
  const n = name.trim();
  for (const [re, spdx, mapped] of NAME_MAP) if (re.test(n)) return { spdx, mapped };
  return null;
}

/** `License :: OSI Approved :: BSD License` → its last segment, mapped. */
export function spdxFromClassifier(classifier: string): { spdx: string; mapped: boolean } | null {
  if (!classifier.startsWith('License ::')) return null;
  const last = classifier
    .split('::')
    .pop()!
    .trim()
    .replace(/\s*\((.*)\)$/, '');
  return spdxFromName(last);
}

const LICENSE_FILE = /^(licen[cs]e|copying)(\.(txt|md|rst))?$|^(licen[cs]e|copying)[-_.]/i;

/** What a license lookup found, and the files it refused to read. */
export interface LicenseScan {
  license: LicenseInfo | null;
  diagnostics: Diagnostic[];
}

/** Entries of `dir` named like license files, best candidates first (`LICENSE` before `LICENSE-THIRD-PARTY`). */
function licenseNames(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return []; // no such folder (a dist-info without licenses/), or not a folder
  }
  return names.filter((n) => LICENSE_FILE.test(n)).sort((a, b) => a.length - b.length || a.localeCompare(b));
}

/** A folder below a source root that may be searched: a real folder, not a symlink to somewhere else. */
export function isRealDir(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The first license file directly in `dir` whose text is recognised; `label` is what `file` is reported as.
 * Symlinks and non-regular files are refused with a `license-file-refused` warning (the license may then be unknown).
 */
export function licenseFromFiles(dir: string, label: (name: string) => string = (n) => n): LicenseScan {
  const diagnostics: Diagnostic[] = [];
  for (const name of licenseNames(dir)) {
    const read = readUpstreamText(join(dir, name));
    if (!read.ok) {
      // A folder named LICENSES/ is common and no attack; anything else named like a license is worth a word.
      if (read.reason === 'not-regular' && isRealDir(join(dir, name))) continue;
      diagnostics.push({
        code: 'license-file-refused',
        severity: 'warning',
        stage: 'sources',
        path: label(name),
        message: `${label(name)} was not read: ${read.detail}`,
        hint: 'license files are read only when they are regular files in the source tree (a symlink could point anywhere); check the license by hand',
      });
      continue;
    }
    const spdx = spdxFromText(read.text);
    if (spdx) return { license: { spdx, method: `${name} file (${spdx} text)`, file: label(name) }, diagnostics };
  }
  return { license: null, diagnostics };
}

/** Debian's machine-readable copyright: the `License:` of the `Files: *` stanza. */
export function licenseFromDebianCopyright(path: string): LicenseInfo | null {
  const read = readUpstreamText(path);
  if (!read.ok) return null;
  const stanza = /^Files:\s*\*\s*$([\s\S]*?)^License:\s*(.+)$/m.exec(read.text);
  if (!stanza) return null;
  const name = stanza[2].trim();
  const m = spdxFromName(name) ?? (/^[A-Za-z0-9.+-]+$/.test(name) ? { spdx: name, mapped: false } : null);
  return m ? { spdx: m.spdx, method: `Debian copyright file (Files: * License: ${name})`, file: path } : null;
}

export interface PackageLicenseMeta {
  licenseExpression?: string | null;
  license?: string | null;
  classifiers?: string[];
}

export function licenseFromMetadata(meta: PackageLicenseMeta): LicenseInfo | null {
  if (meta.licenseExpression)
    return {
      spdx: meta.licenseExpression.trim(),
      method: `package metadata License-Expression: ${meta.licenseExpression.trim()}`,
    };
  const field = meta.license?.trim();
  // Old setuptools writes the whole license text into `License:`; try it as text too.
  if (field && field.toUpperCase() !== 'UNKNOWN') {
    const m =
      spdxFromName(field.split('\n')[0]) ??
      (field.length > 200 ? ((s) => (s ? { spdx: s, mapped: false } : null))(spdxFromText(field)) : null);
    if (m)
      return {
        spdx: m.spdx,
        method: `package metadata License: ${field.split('\n')[0].slice(0, 60)}${m.mapped ? ` (mapped to ${m.spdx})` : ''}`,
      };
  }
  for (const c of meta.classifiers ?? []) {
    const m = spdxFromClassifier(c);
    if (m) return { spdx: m.spdx, method: `package classifier ${c}${m.mapped ? ` (mapped to ${m.spdx})` : ''}` };
  }
  return null;
}

export const NO_LICENSE: LicenseInfo = { spdx: null, method: 'no license file or metadata found' };
