// The requirements a source declares — what a user of the repository must install to import and run its modules —
// read as data from its checkout: nothing upstream runs, nothing is downloaded. The per-format readers live in
// requirements/ (pyproject.ts, setup-cfg.ts, setup-py.ts, pip-file.ts); this file owns the root, the files read,
// the markers' environment, de-duplication and the diagnostics. See docs/sources.md ("Declared requirements").
import { posix } from 'node:path';
import type { Diagnostic } from '../contract/diagnostics.ts';
import { evaluateMarker, linuxEnvironment, type MarkerEnvironment } from './requirements/markers.ts';
import { compareVersions, parseVersion } from './requirements/pep440.ts';
import { parseRequirement } from './requirements/pep508.ts';
import { pipEntries } from './requirements/pip-file.ts';
import { isInstallable, readPyproject } from './requirements/pyproject.ts';
import { RootedFiles } from './requirements/rooted-files.ts';
import { readSetupCfg } from './requirements/setup-cfg.ts';
import { readSetupPy } from './requirements/setup-py.ts';
import type {
  DeclaredRequirement,
  DeclaredRequirements,
  DeclaredRequirementsOptions,
  Origin,
  RequirementSink,
} from './requirements/types.ts';

export type { DeclaredRequirements, DeclaredRequirementsOptions } from './requirements/types.ts';
export { requirementsToInstall } from './requirements/to-install.ts';

/** Requirements files read by convention when present (`opts.files` replaces them). */
export const CONVENTIONAL_FILES = ['requirements.txt', 'requirements/runtime.txt', 'requirements/requirements.txt'];

/**
 * Words that mark a requirements file as not needed to import and run the modules: tests, development, docs,
 * linting, optional or build extras, CI, OpenMMLab's `mminstall.txt` (the sibling packages mim installs). Matched
 * against the words of each part of an included file's path (`requirements/tests_lite.txt` → tests, lite).
 */
const NOT_RUNTIME = new Set(
  (
    'test tests testing dev develop development doc docs lint linting optional readthedocs rtd mminstall ci build ' +
    'extra extras all example examples bench benchmark benchmarks style typing mypy'
  ).split(' '),
);

const MAX_FILES = 64;
const MAX_INVALID_PER_FILE = 20;

/**
 * What `root` (a source's checkout) declares as runtime requirements. The files that count:
 *
 * 1. package metadata: `pyproject.toml` `[project].dependencies` (with `[tool.setuptools.dynamic]` files when
 *    dependencies are dynamic), `setup.cfg` `[options] install_requires` (`file:` too), `setup.py`
 *    `install_requires=` (read statically: requirements/setup-py.ts); a requirements file these name is read
 *    whatever its name, since the package itself says it holds install requirements;
 * 2. by convention (a research repository run from its clone declares nothing else): `requirements.txt`,
 *    `requirements/runtime.txt` and `requirements/requirements.txt` — or `opts.files` instead;
 * 3. `-r` includes of those, relative to the including file, except files whose path has a word of NOT_RUNTIME
 *    (mmcv's `requirements.txt` is `-r requirements/{build,optional,runtime,test}.txt`: runtime alone counts).
 *
 * Optional dependencies (extras, `extras_require`) are not runtime requirements and are never read. Markers are
 * evaluated for Linux x86_64 and `opts.python`: a requirement whose marker is false is dropped, one whose marker
 * cannot be decided is kept with it recorded. One record per PEP 503 name, in the order first declared: `spec` and
 * `from` are the first declaration's, `specifier` joins every declaration's version clauses, `also` lists the later
 * declarations. Problems are diagnostics (stage `sources`), never exceptions.
 */
export function declaredRequirements(root: string, opts: DeclaredRequirementsOptions = {}): DeclaredRequirements {
  return new DeclaredReader(root, opts).read();
}

interface Merged {
  req: DeclaredRequirement;
  clauses: string[];
  extras: Set<string>;
  /** Some declaration holds whatever the unknown variables are: no marker is recorded. */
  unconditional: boolean;
}

class DeclaredReader implements RequirementSink {
  private readonly files: RootedFiles;
  private readonly env: MarkerEnvironment;
  private readonly diagnostics: Diagnostic[] = [];
  private readonly merged = new Map<string, Merged>();
  /** Real paths of the files read, and of those being read (an include of one of these is a cycle). */
  private readonly done = new Set<string>();
  private readonly reading: string[] = [];
  private readonly invalid = new Map<string, number>();

  constructor(
    root: string,
    private readonly opts: DeclaredRequirementsOptions,
  ) {
    this.files = new RootedFiles(root, opts.maxFileBytes ?? 1 << 20);
    this.env = linuxEnvironment(opts.python);
  }

  read(): DeclaredRequirements {
    readPyproject(this);
    readSetupCfg(this);
    readSetupPy(this);
    // Files the caller names are expected to exist; conventional ones are read only where present.
    const how = this.opts.files ? 'named' : 'conventional';
    for (const f of this.opts.files ?? CONVENTIONAL_FILES) this.requirementsFile('', f, undefined, how);
    for (const [file, n] of this.invalid)
      if (n > MAX_INVALID_PER_FILE)
        this.report({
          code: 'requirement-invalid',
          severity: 'warning',
          message: `${n - MAX_INVALID_PER_FILE} more malformed requirements in ${file} are not listed`,
          path: file,
        });
    const installable = isInstallable((file) => {
      const got = this.files.read(file);
      return got.ok ? got.text : undefined;
    });
    return { requirements: [...this.merged.values()].map(finish), installable, diagnostics: this.diagnostics };
  }

  report(d: Omit<Diagnostic, 'stage'>): void {
    this.diagnostics.push({ stage: 'sources', ...d });
  }

  metadataText(path: string): string | undefined {
    const got = this.files.read(path);
    if (got.ok) return got.text;
    if (!got.missing)
      this.report({
        code: 'requirements-file-refused',
        severity: 'warning',
        message: `${path} is not read: ${got.reason}`,
        path,
      });
    return undefined;
  }

  namedFile(path: string, at: Origin): void {
    this.requirementsFile('', path, at, 'named');
  }

  declare(spec: string, at: Origin): void {
    this.add(spec, at);
  }

  /** Reads one requirements file and, recursively, its includes; each file once, never outside the root. */
  private requirementsFile(
    fromDir: string,
    path: string,
    at: Origin | undefined,
    how: 'conventional' | 'named' | 'include',
  ): void {
    const where = at ? { path: at.file, span: at.span } : { path };
    const located = this.files.locate(fromDir, path);
    if (!located.ok)
      return this.report({
        code: 'requirements-file-refused',
        severity: 'warning',
        message: `requirements file ${JSON.stringify(path.slice(0, 200))} is not read: ${located.reason}`,
        ...where,
      });
    const rel = located.rel;
    if (how === 'include' && !isRuntimeFile(rel))
      return this.report({
        code: 'requirements-include-not-runtime',
        severity: 'info',
        message: `${rel} is not read: its name says it is not needed to run the modules (tests, docs, build, optional...)`,
        ...where,
      });
    const got = this.files.read(rel);
    if (!got.ok) {
      if (got.missing && how === 'conventional') return;
      return this.report({
        code: got.missing ? 'requirements-file-missing' : 'requirements-file-refused',
        severity: 'warning',
        message: `requirements file ${rel} is not read: ${got.reason}`,
        ...where,
      });
    }
    if (this.reading.includes(got.real))
      return this.report({
        code: 'requirements-include-cycle',
        severity: 'info',
        message: `${rel} includes itself through -r; read once`,
        ...where,
      });
    if (this.done.has(got.real)) return;
    if (this.done.size >= MAX_FILES)
      return this.report({
        code: 'requirements-file-refused',
        severity: 'warning',
        message: `${rel} is not read: over ${MAX_FILES} requirements files`,
        ...where,
      });
    this.done.add(got.real);
    this.reading.push(got.real);
    for (const e of pipEntries(got.text)) {
      const origin = { file: rel, span: e.span };
      if (e.kind === 'requirement') this.add(e.text, origin);
      else if (e.kind === 'include') this.requirementsFile(posix.dirname(rel), e.path, origin, 'include');
      else
        this.report({
          code: 'requirement-skipped',
          severity: 'info',
          message: `${rel}:${e.line}: \`${clip(e.text)}\` is skipped: ${e.why}`,
          path: rel,
          span: e.span,
        });
    }
    this.reading.pop();
  }

  private add(spec: string, at: Origin): void {
    const line = at.span?.startLine;
    const where = `${at.file}${line ? `:${line}` : ''}`;
    const parsed = parseRequirement(spec);
    if (typeof parsed === 'string') {
      const n = (this.invalid.get(at.file) ?? 0) + 1;
      this.invalid.set(at.file, n);
      if (n <= MAX_INVALID_PER_FILE)
        this.report({
          code: 'requirement-invalid',
          severity: 'warning',
          message: `${where}: \`${clip(spec)}\` is not a PEP 508 requirement (${parsed})`,
          path: at.file,
          span: at.span,
        });
      return;
    }
    const truth = parsed.marker ? evaluateMarker(parsed.marker, this.env) : true;
    if (truth === false) return; // not for Linux x86_64 / this Python: pip would not install it either
    if (parsed.url)
      return this.report({
        code: 'requirement-skipped',
        severity: 'info',
        message: `${where}: \`${clip(spec)}\` is skipped: a direct URL reference, not installable from an index`,
        path: at.file,
        span: at.span,
      });
    if (truth === 'unknown')
      this.report({
        code: 'requirement-marker-unknown',
        severity: 'info',
        message: `${where}: the marker of \`${clip(spec)}\` cannot be decided for Linux x86_64 (Python ${this.env.python_version}); kept`,
        path: at.file,
        span: at.span,
      });
    const text = spec.trim();
    const m = this.merged.get(parsed.name);
    if (!m) {
      const req: DeclaredRequirement = { name: parsed.name, spec: text, from: at.file };
      if (line) req.line = line;
      this.merged.set(parsed.name, {
        req,
        clauses: [],
        extras: new Set(parsed.extras),
        unconditional: truth === true,
      });
      if (truth === 'unknown') req.marker = parsed.markerText;
      addClauses(this.merged.get(parsed.name)!.clauses, parsed.specifier);
      return;
    }
    (m.req.also ??= []).push(line ? { spec: text, from: at.file, line } : { spec: text, from: at.file });
    addClauses(m.clauses, parsed.specifier);
    for (const e of parsed.extras) m.extras.add(e);
    if (truth === true) m.unconditional = true;
  }
}

function finish(m: Merged): DeclaredRequirement {
  const req = { ...m.req };
  if (m.clauses.length) req.specifier = m.clauses.join(',');
  if (m.extras.size) req.extras = [...m.extras].sort();
  if (m.unconditional) delete req.marker;
  return req;
}

/** Adds `>=1.20,<2`'s clauses, each once: `>=3.3` and `>=3.3.0` are one clause (equal PEP 440 versions). */
function addClauses(into: string[], specifier: string): void {
  for (const clause of specifier ? specifier.split(',') : []) {
    const [, op, version] = /^(===|~=|==|!=|<=|>=|<|>)(.*)$/.exec(clause)!;
    const v = parseVersion(version);
    const same = into.some((c) => {
      if (c === clause) return true;
      const [, op2, version2] = /^(===|~=|==|!=|<=|>=|<|>)(.*)$/.exec(c)!;
      const v2 = parseVersion(version2);
      return op === op2 && op !== '===' && !!v && !!v2 && !version.endsWith('*') && compareVersions(v, v2) === 0;
    });
    if (!same) into.push(clause);
  }
}

/** Whether an included file's path names it as needed at run time (no word of NOT_RUNTIME in any part). */
export function isRuntimeFile(rel: string): boolean {
  return !rel
    .replace(/\.[^./]*$/, '')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .some((w) => NOT_RUNTIME.has(w));
}

function clip(s: string): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > 120 ? one.slice(0, 117) + '...' : one;
}
