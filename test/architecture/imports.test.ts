// The import graph of pipeline/ and src/: stages import only downward, everything may import the ground floor
// (`contract/`, the published records and the stage contract; `util/`, pure helpers), the site imports nothing of
// the pipeline but that floor, and no files import each other in a circle (type-only imports and worker URLs count
// as edges). STYLE.md habits 11 and 12: a stage that imports a later one can no longer be run or tested without it,
// and a circle makes the order in which modules load decide what they see. There is no list of exempt files: a
// module every stage needs belongs on the floor.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/** Stages from bottom to top: a stage may import from the stages before it. */
const STAGES = [
  'contract',
  'util',
  'config',
  'sandbox',
  'sources',
  'environment',
  'parse',
  'index',
  'resolve',
  'discover',
  'usage',
  'assemble',
  'validate',
  'dedup',
  'catalog',
  'feed',
  'site',
  'run',
  'cli',
];

/** The ground floor: what src/ may import from pipeline/. */
const FLOOR = new Set(['contract', 'util']);

/** Scripts at the top of pipeline/ that no module imports and that import no module (`npm run setup`). */
const STANDALONE = new Set(['pipeline/setup.mjs']);

const CODE = /\.(ts|mjs|astro)$/;

function listCode(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const abs = join(dir, name);
    if (statSync(abs).isDirectory()) out.push(...listCode(abs));
    else if (CODE.test(name) && !name.endsWith('.d.ts')) out.push(abs);
  }
  return out;
}

/** The script parts of an .astro file: its frontmatter and its <script> elements. */
function astroScripts(text: string): string {
  const front = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text)?.[1] ?? '';
  const scripts = [...text.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
  return [front, ...scripts].join('\n');
}

/** Relative specifiers a file imports: static, type-only, re-exports, `import()`, `new URL(..., import.meta.url)`. */
function specifiers(file: string): string[] {
  const raw = readFileSync(file, 'utf8');
  const text = file.endsWith('.astro') ? astroScripts(raw) : raw;
  const found = ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
  for (const m of text.matchAll(/new URL\(\s*['"]([^'"]+)['"]\s*,\s*import\.meta\.url\s*\)/g)) found.push(m[1]);
  return found.filter((s) => s.startsWith('./') || s.startsWith('../'));
}

interface Edge {
  from: string;
  to: string;
}

/** Every file and every edge between code files (repo-relative posix paths); unresolved relative imports too. */
function importGraph(root: string): { files: string[]; edges: Edge[]; unresolved: Edge[] } {
  const files = [...listCode(join(root, 'pipeline')), ...listCode(join(root, 'src'))];
  const rel = (abs: string) => relative(root, abs).split('\\').join('/');
  const edges: Edge[] = [];
  const unresolved: Edge[] = [];
  for (const file of files) {
    for (const spec of specifiers(file)) {
      const target = resolve(dirname(file), spec);
      if (!CODE.test(target)) continue; // JSON, CSS, package.json, python files read at runtime
      (existsSync(target) ? edges : unresolved).push({ from: rel(file), to: rel(target) });
    }
  }
  return { files: files.map(rel), edges, unresolved };
}

/** The stage of a file: 'src', a pipeline folder, or the file name for pipeline's top-level files. */
function stageOf(file: string): string {
  if (file.startsWith('src/')) return 'src';
  const parts = file.split('/');
  return parts.length > 2 ? parts[1] : parts[1].replace(/\.\w+$/, '');
}

/** Why an edge breaks the layering, or null when it is allowed. */
function layeringProblem({ from, to }: Edge): string | null {
  if (STANDALONE.has(from) || STANDALONE.has(to)) return 'a standalone script takes part in imports';
  const a = stageOf(from);
  const b = stageOf(to);
  if (a === b) return null;
  if (a === 'src') return FLOOR.has(b) ? null : `src/ imports pipeline/${b}/, above the floor (contract/, util/)`;
  if (b === 'src') return 'pipeline/ imports from src/';
  const ra = STAGES.indexOf(a);
  const rb = STAGES.indexOf(b);
  if (ra < 0 || rb < 0) return `stage '${ra < 0 ? a : b}' has no rank (add it to STAGES)`;
  return rb < ra ? null : `${a} imports ${b}, a higher stage`;
}

/**
 * Why a CLI edge goes around the orchestrator, or null: the CLI parses arguments, calls run/ and prints, so it
 * imports run/ and the ground floor only, never a stage.
 */
function cliProblem({ from, to }: Edge): string | null {
  if (stageOf(from) !== 'cli' || FLOOR.has(stageOf(to)) || ['cli', 'run'].includes(stageOf(to))) return null;
  return `the CLI imports ${stageOf(to)}, a stage (call it through run/)`;
}

/** Tarjan's strongly connected components; returns those with a cycle (2+ files, or a file importing itself). */
function cycles(files: string[], edges: Edge[]): string[][] {
  const next = new Map<string, string[]>(files.map((f) => [f, []]));
  for (const e of edges) next.get(e.from)?.push(e.to);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  let counter = 0;
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || next.get(v)!.includes(v)) out.push(scc.sort());
    }
  };
  for (const f of files) if (!index.has(f)) visit(f);
  return out;
}

describe('import graph of pipeline/ and src/', () => {
  const graph = importGraph(process.cwd());

  it('reads a real graph', () => {
    expect(graph.files.length).toBeGreaterThan(100);
    expect(graph.edges.length).toBeGreaterThan(200);
    // Worker entry points and type-only imports are edges too.
    expect(graph.edges).toContainEqual({ from: 'pipeline/index/parse-pool.ts', to: 'pipeline/index/parse-worker.mjs' });
    expect(graph.edges.some((e) => e.from.startsWith('src/') && e.to === 'pipeline/contract/block.ts')).toBe(true);
  });

  it('every relative import names an existing file', () => {
    expect(graph.unresolved.map((e) => `${e.from} -> ${e.to}`)).toEqual([]);
  });

  it('no import runs from a lower stage to a higher one; src/ imports only the floor', () => {
    const bad = graph.edges.flatMap((e) => {
      const why = layeringProblem(e);
      return why ? [`${e.from} -> ${e.to}  (${why})`] : [];
    });
    expect(bad, `imports against the stage order:\n${bad.join('\n')}`).toEqual([]);
  });

  it('the CLI reaches the stages only through run/', () => {
    const bad = graph.edges.flatMap((e) => {
      const why = cliProblem(e);
      return why ? [`${e.from} -> ${e.to}  (${why})`] : [];
    });
    expect(bad, `CLI imports past the orchestrator:\n${bad.join('\n')}`).toEqual([]);
  });

  it('no import cycle between files', () => {
    const found = cycles(graph.files, graph.edges).map((scc) => {
      const inside = new Set(scc);
      const edges = graph.edges.filter((e) => inside.has(e.from) && inside.has(e.to));
      return `cycle of ${scc.length}:\n${edges.map((e) => `  ${e.from} -> ${e.to}`).join('\n')}`;
    });
    expect(found, found.join('\n')).toEqual([]);
  });
});

describe('the checks themselves', () => {
  it('flag an upward edge, src reaching past the floor, and the floor importing a stage', () => {
    expect(layeringProblem({ from: 'pipeline/index/index.ts', to: 'pipeline/cli/io.ts' })).toBe(
      'index imports cli, a higher stage',
    );
    expect(layeringProblem({ from: 'pipeline/cli/main.ts', to: 'pipeline/index/index.ts' })).toBeNull();
    expect(layeringProblem({ from: 'src/lib/catalog.ts', to: 'pipeline/catalog/write-catalog.ts' })).toMatch(/src/);
    expect(layeringProblem({ from: 'src/lib/catalog.ts', to: 'pipeline/contract/block.ts' })).toBeNull();
    expect(layeringProblem({ from: 'src/lib/catalog.ts', to: 'pipeline/util/params-text.ts' })).toBeNull();
    expect(layeringProblem({ from: 'pipeline/parse/facts.ts', to: 'pipeline/contract/diagnostics.ts' })).toBeNull();
    expect(layeringProblem({ from: 'pipeline/contract/block.ts', to: 'pipeline/parse/facts.ts' })).toMatch(/higher/);
    expect(layeringProblem({ from: 'pipeline/util/glob.ts', to: 'pipeline/config/load.ts' })).toMatch(/higher/);
    expect(layeringProblem({ from: 'pipeline/contract/block.ts', to: 'pipeline/util/glob.ts' })).toMatch(/higher/);
    expect(layeringProblem({ from: 'pipeline/newstage/x.ts', to: 'pipeline/util/glob.ts' })).toMatch(/no rank/);
  });

  it('flag the CLI importing a stage, not run/ or the floor', () => {
    expect(cliProblem({ from: 'pipeline/cli/commands/build.ts', to: 'pipeline/site/build-site.ts' })).toMatch(/site/);
    expect(cliProblem({ from: 'pipeline/cli/commands/build.ts', to: 'pipeline/run/build.ts' })).toBeNull();
    expect(cliProblem({ from: 'pipeline/cli/main.ts', to: 'pipeline/util/package-version.ts' })).toBeNull();
    expect(cliProblem({ from: 'pipeline/cli/main.ts', to: 'pipeline/contract/diagnostics.ts' })).toBeNull();
    expect(cliProblem({ from: 'pipeline/run/build.ts', to: 'pipeline/site/build-site.ts' })).toBeNull();
  });

  it('find a cycle, including a file importing itself, and not a diamond', () => {
    const e = (from: string, to: string) => ({ from, to });
    expect(cycles(['a', 'b', 'c', 'd'], [e('a', 'b'), e('b', 'c'), e('c', 'a'), e('c', 'd')])).toEqual([
      ['a', 'b', 'c'],
    ]);
    expect(cycles(['a'], [e('a', 'a')])).toEqual([['a']]);
    expect(cycles(['a', 'b', 'c', 'd'], [e('a', 'b'), e('a', 'c'), e('b', 'd'), e('c', 'd')])).toEqual([]);
  });
});
