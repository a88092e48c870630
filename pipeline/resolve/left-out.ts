// What a closure leaves out on purpose: the free names that only methods which never run read (methods.ts). They
// are not followed; the emitted module lists them next to their class, so that a reader who calls such a method
// learns why a NameError comes (docs/resolve.md, "Methods").
//   # nnblocks: not followed (only methods never reached from import, construction or forward use them): print_log
//   # nnblocks: those methods: init_weights
import type { IncludedStmt } from './closure-record.ts';
import type { Lookup, Target } from './lookup.ts';
import { inBody, type Method } from './methods.ts';
import type { Program } from './program.ts';

/**
 * Sets `unfollowed` on the statements of the unreached methods. A name the closure provides for other code all
 * the same (`nn`) is not listed: its references take its binding, so they follow a rename. A relative import in
 * such a method becomes absolute all the same (nothing relative is left in an emitted module).
 */
export function leaveOut(
  c: { stmts: Map<string, IncludedStmt> },
  unreached: Method[],
  lookup: Lookup,
  program: Program,
  bindingOf: (t: Target) => string | undefined,
): void {
  const byStmt = new Map<string, Method[]>();
  for (const u of unreached) byStmt.set(u.stmt, [...(byStmt.get(u.stmt) ?? []), u]);
  for (const [key, list] of byStmt) {
    const st = c.stmts.get(key)!;
    const facts = st.mod.facts.statements[st.stmt];
    const names = new Set<string>();
    const users = new Set<string>();
    for (const ref of [...facts.deferred, ...facts.rebinds]) {
      if (st.refs.has(ref.name)) continue;
      const t = lookup.name(st.mod, ref.name);
      if (t.kind === 'builtin') continue;
      const have = bindingOf(t);
      if (have) {
        st.refs.set(ref.name, have);
        continue;
      }
      for (const u of list) {
        if (!ref.occurrences.some((o) => inBody(u.fact, o.startByte))) continue;
        names.add(ref.name);
        users.add(u.fact.name);
      }
    }
    for (const imp of st.mod.facts.imports) {
      if (imp.statementIndex !== st.stmt || imp.kind !== 'from' || imp.level === 0) continue;
      if (!list.some((u) => inBody(u.fact, imp.span.startByte))) continue;
      const absolute = program.absoluteFrom(st.mod, imp);
      if (absolute !== null) st.importRewrites.push({ imp, binds: [], absolute });
    }
    if (names.size) st.unfollowed = { names: [...names].sort(), methods: [...users].sort() };
  }
}
