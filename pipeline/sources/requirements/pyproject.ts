// pyproject.toml's runtime requirements (PEP 621): `[project].dependencies`, a list of PEP 508 strings. Optional
// dependencies are extras, not what importing the package needs, and are not read. When `dependencies` is
// `dynamic`, setuptools' `[tool.setuptools.dynamic] dependencies = { file = [...] }` names requirements files.
import { parseToml, type TomlTable, type TomlValue } from './toml.ts';
import type { RequirementSink } from './types.ts';

const FILE = 'pyproject.toml';

/**
 * Whether pip can install the checkout whose top holds these files (`pip install git+<url>@<commit>` builds the
 * repository's top): a `setup.py`, or a `pyproject.toml` with a `[project]` or `[build-system]` table. A `setup.cfg`
 * alone is not enough (pip: "neither 'setup.py' nor 'pyproject.toml' found"), nor is a pyproject.toml that only
 * configures tools (`[tool.black]`). Read as data: nothing upstream runs.
 */
export function isInstallable(read: (file: string) => string | undefined): boolean {
  if (read('setup.py') !== undefined) return true;
  const text = read(FILE);
  if (text === undefined) return false;
  const doc = parseToml(text);
  return doc.ok && (table(doc.value.project) !== undefined || table(doc.value['build-system']) !== undefined);
}

export function readPyproject(sink: RequirementSink): void {
  const text = sink.metadataText(FILE);
  if (text === undefined) return;
  const doc = parseToml(text);
  if (!doc.ok) {
    sink.report({
      code: 'requirements-metadata-unreadable',
      severity: 'warning',
      message: `${FILE} is not valid TOML (line ${doc.line}: ${doc.error}); its dependencies are not read`,
      path: FILE,
      span: { startByte: 0, endByte: 0, startLine: doc.line, endLine: doc.line },
    });
    return;
  }
  const project = table(doc.value.project);
  const deps = project?.dependencies;
  if (Array.isArray(deps)) {
    for (const dep of deps) {
      if (typeof dep === 'string') sink.declare(dep, { file: FILE, span: lineOf(text, dep) });
      else
        sink.report({
          code: 'requirement-invalid',
          severity: 'warning',
          message: `[project].dependencies in ${FILE} holds a ${typeof dep}, not a requirement string`,
          path: FILE,
        });
    }
  } else if (deps !== undefined)
    sink.report({
      code: 'requirements-not-static',
      severity: 'warning',
      message: `[project].dependencies in ${FILE} is not a list of strings`,
      path: FILE,
    });

  const dynamic = project?.dynamic;
  if (Array.isArray(dynamic) && dynamic.includes('dependencies')) {
    const files = table(table(table(doc.value.tool)?.setuptools)?.dynamic)?.dependencies;
    const named = table(files)?.file;
    for (const f of typeof named === 'string' ? [named] : Array.isArray(named) ? named : [])
      if (typeof f === 'string') sink.namedFile(f, { file: FILE, span: lineOf(text, f) });
    if (named === undefined)
      sink.report({
        code: 'requirements-dynamic',
        severity: 'info',
        message: `${FILE} declares its dependencies dynamic (the build backend computes them); setup.py and setup.cfg are read instead`,
        path: FILE,
      });
  }
  if (table(table(doc.value.tool)?.poetry)?.dependencies !== undefined)
    sink.report({
      code: 'requirements-format-unread',
      severity: 'info',
      message: `${FILE} declares [tool.poetry.dependencies], a format nnblocks does not read`,
      hint: 'name the requirements in a requirements file the corpus config lists',
      path: FILE,
    });
}

function table(v: TomlValue | undefined): TomlTable | undefined {
  return v !== undefined && typeof v === 'object' && !Array.isArray(v) ? v : undefined;
}

/** The line a string value first appears on (TOML values carry no position; a close guess is better than none). */
function lineOf(text: string, value: string) {
  let at = text.indexOf(JSON.stringify(value));
  if (at < 0) at = text.indexOf(`'${value}'`);
  if (at < 0) return undefined;
  const line = text.slice(0, at).split('\n').length;
  const startByte = Buffer.byteLength(text.slice(0, at));
  return { startByte, endByte: startByte + Buffer.byteLength(value) + 2, startLine: line, endLine: line };
}
