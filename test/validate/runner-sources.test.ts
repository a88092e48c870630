// The runner's source reader (pipeline/validate/python/nnblocks_runner/sources.py): each file parsed once, and for
// every class and function the same tree `ast.parse(textwrap.dedent(inspect.getsource(obj)))` gives, which it
// replaced for speed. Checked in a real interpreter against inspect itself, on the shapes inspect's own class finder
// handles: nested classes, classes defined in functions (`<locals>`), decorated classes, a name defined twice.
import { execFileSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { testPython } from '../helpers/python.ts';
import { py, writeTree } from '../helpers/tree.ts';

const RUNNER = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'pipeline', 'validate', 'python');

const module = py`
  import functools

  def deco(cls):
      return cls

  class Outer:
      class Inner:
          def method(self, a, b=1):
              return a + b

  @deco
  @functools.total_ordering
  class Decorated:
      def __eq__(self, other):
          return True
      def __lt__(self, other):
          return False

  def factory():
      class Local:
          x = 1
      return Local

  if True:
      class Twice:
          first = True
  else:
      class Twice:
          first = False

  class Twice:
      first = False

  def plain(x, *, y=2):
      """A docstring."""
      return x * y
`;

const script = `
import ast, inspect, json, sys, textwrap
sys.path[:0] = [sys.argv[1], sys.argv[2]]
import sample
from nnblocks_runner import sources
objs = {"Outer": sample.Outer, "Outer.Inner": sample.Outer.Inner, "Decorated": sample.Decorated,
        "Local": sample.factory(), "Twice": sample.Twice}
out = {}
for name, obj in objs.items():
    want = ast.dump(ast.parse(textwrap.dedent(inspect.getsource(obj))))
    out[name] = ast.dump(sources.class_tree(obj)) == want
out["plain"] = ast.dump(sources.function_tree(sample.plain)) == ast.dump(ast.parse(inspect.getsource(sample.plain)))
out["method"] = ast.dump(sources.function_tree(sample.Outer.Inner.method)) == ast.dump(
    ast.parse(textwrap.dedent(inspect.getsource(sample.Outer.Inner.method))))
out["module"] = ast.dump(sources.module_tree("sample")) == ast.dump(ast.parse(inspect.getsource(sample)))
out["text"] = sources.module_text("sample") == inspect.getsource(sample)
out["builtin"] = sources.class_tree(int) is None and sources.module_tree("no.such.module") is None
print(json.dumps(out))
`;

describe('the runner reads a class source as inspect does, parsing its file once', () => {
  it('gives the trees inspect.getsource gives, for every shape its class finder handles', () => {
    const dir = writeTree({ 'sample.py': module });
    const out = JSON.parse(execFileSync(testPython(), ['-c', script, dir, RUNNER], { encoding: 'utf8' }));
    expect(out).toEqual({
      Outer: true,
      'Outer.Inner': true,
      Decorated: true,
      Local: true,
      Twice: true,
      plain: true,
      method: true,
      module: true,
      text: true,
      builtin: true,
    });
  });

  it("gives inspect's findsource answer for any class, upstream's calls included, parsing each file once", () => {
    const dir = writeTree({ 'sample.py': module });
    const check = `
import ast, inspect, json, sys
sys.path[:0] = [sys.argv[1], sys.argv[2]]
import sample, torch
from nnblocks_runner import sources
objs = [sample.Outer, sample.Outer.Inner, sample.Decorated, sample.factory(), sample.Twice]
objs += [v for m in (torch.nn.modules.conv, torch.nn.modules.activation) for v in vars(m).values() if isinstance(v, type)]
Stray = type("Stray", (), {"__module__": "sample"})  # its qualified name is in no class statement of the file
def answer(find, obj):
    try:
        lines, line = find(obj)
        return [id(lines), line]
    except (OSError, TypeError) as exc:
        return [type(exc).__name__, str(exc)]
same = [answer(inspect.findsource, o) == answer(sources.findsource, o) for o in [*objs, Stray, sample.plain, sample]]
parses, parse = [], ast.parse
ast.parse = lambda *a, **k: parses.append(1) or parse(*a, **k)
for _ in range(3):
    for o in objs[:5]:
        sources.findsource(o)
ast.parse = parse
sources.install_findsource()
installed = inspect.getsource(sample.Decorated).startswith("@deco")
print(json.dumps({"all": all(same), "n": len(same), "parses": len(parses), "stray": answer(sources.findsource, Stray)[0],
                  "installed": installed}))
`;
    const out = JSON.parse(execFileSync(testPython(), ['-c', check, dir, RUNNER], { encoding: 'utf8' }));
    expect(out.all).toBe(true);
    expect(out.n).toBeGreaterThan(20);
    expect(out.stray).toBe('OSError');
    expect(out.parses).toBe(0); // sample.py was parsed by the comparison above: once, and never again
    expect(out.installed).toBe(true);
  });
});
