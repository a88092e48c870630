// The scope analysis checked against CPython's own compiler: for every top-level statement of the installed
// torchvision, the module-level names read inside its function/lambda bodies (CPython's `symtable`) must equal
// our `deferred` names, and the names read in its class bodies must be among our `eager` names.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { parseModule } from '../../pipeline/parse/parse-module.ts';
import { DEBIAN_TORCHVISION, describeOnDebianTorchvision, testPython } from '../helpers/python.ts';

const ROOT = DEBIAN_TORCHVISION;

// Per file: for each top-level statement, [deferred names, class-body names] as CPython's symtable sees them.
// Comprehensions are their own scopes in symtable but run at once; only defs and lambdas defer.
const SCRIPT = `
import ast, json, os, symtable, sys
root = sys.argv[1]
out = {}
for d, _, files in os.walk(root):
    for f in files:
        if not f.endswith('.py'):
            continue
        path = os.path.join(d, f)
        src = open(path, encoding='utf-8').read()
        tree = ast.parse(src)
        if any(isinstance(n, ast.ImportFrom) and n.module == '__future__' and any(a.name == 'annotations' for a in n.names) for n in tree.body):
            continue  # annotations are then never evaluated, so symtable leaves them out; we keep them as deferred
        tops = [((n.decorator_list[0].lineno if getattr(n, 'decorator_list', None) else n.lineno), n.end_lineno) for n in tree.body]
        res = [[set(), set()] for _ in tops]
        def stmt_of(line):
            return next((i for i, (a, b) in enumerate(tops) if a <= line <= b), None)
        def walk(t, deferred):
            for ch in t.get_children():
                d = deferred or (ch.get_type() == 'function' and ch.get_name() not in ('listcomp', 'dictcomp', 'setcomp', 'genexpr'))
                i = stmt_of(ch.get_lineno())
                if i is not None:
                    for s in ch.get_symbols():
                        if s.is_referenced() and s.get_name() != '__class__' and (s.is_global() or (ch.get_type() == 'class' and not s.is_local() and not s.is_free())):
                            res[i][0 if d else 1].add(s.get_name())
                walk(ch, d)
        walk(symtable.symtable(src, path, 'exec'), False)
        out[os.path.relpath(path, root)] = [[sorted(a), sorted(b)] for a, b in res]
print(json.dumps(out))
`;

describeOnDebianTorchvision('agreement with CPython symtable on torchvision', () => {
  it('deferred names equal, class-body names included in eager', () => {
    const expected = JSON.parse(
      execFileSync(testPython(), ['-c', SCRIPT, ROOT], { encoding: 'utf8', maxBuffer: 64 << 20 }),
    ) as Record<string, [string[], string[]][]>;
    let statements = 0;
    const mismatches: string[] = [];
    for (const [rel, stmts] of Object.entries(expected)) {
      const facts = parseModule(readFileSync(`${ROOT}/${rel}`));
      expect(facts.statements.length, rel).toBe(stmts.length);
      stmts.forEach(([deferred, classBody], i) => {
        statements++;
        const st = facts.statements[i];
        const ours = st.deferred.map((r) => r.name).sort();
        if (JSON.stringify(ours) !== JSON.stringify(deferred))
          mismatches.push(`${rel}:${st.span.startLine} deferred ours=${ours} cpython=${deferred}`);
        const eager = new Set(st.eager.map((r) => r.name));
        const missing = classBody.filter((n) => !eager.has(n));
        if (missing.length) mismatches.push(`${rel}:${st.span.startLine} eager lacks ${missing}`);
      });
    }
    expect(statements).toBeGreaterThan(1000);
    expect(mismatches).toEqual([]);
  }, 60_000);
});
