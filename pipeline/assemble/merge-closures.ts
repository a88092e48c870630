// The closures of several blocks as one: every statement any of them needs, each once, with what all of them
// read through it. What a package of blocks extracted together holds (package.ts).
import type { Closure, IncludedStmt } from '../resolve/closure-record.ts';

/**
 * One closure holding every statement, binding and namespace member of `closures`. A statement two closures
 * share reads, in the union, what either followed in it (a method one block reaches and the other does not); a dict
 * literal keeps the entries either reads (whole when one reads it whole); what neither followed stays listed as
 * not followed. `blockKey` and `rootKeys` are the first closure's: the union has no single block.
 */
export function mergeClosures(closures: Closure[]): Closure {
  const first = closures[0];
  const out: Closure = {
    blockKey: first.blockKey,
    rootKeys: [...first.rootKeys],
    stmts: new Map(),
    namespaces: new Map(),
    bindings: new Map(),
    externals: new Set(),
    submodules: new Map(),
    diagnostics: [],
  };
  for (const c of closures) {
    for (const st of c.stmts.values()) {
      const had = out.stmts.get(st.key);
      out.stmts.set(st.key, had ? mergeStmt(had, st) : copyStmt(st));
    }
    for (const ns of c.namespaces.values()) {
      const had = out.namespaces.get(ns.key);
      if (!had) out.namespaces.set(ns.key, { ...ns, members: new Map(ns.members) });
      else {
        for (const [attr, k] of ns.members) if (!had.members.has(attr)) had.members.set(attr, k);
        if (ns.complete) had.complete = true;
      }
    }
    for (const b of c.bindings.values()) {
      const had = out.bindings.get(b.key);
      if (!had) out.bindings.set(b.key, { ...b });
      else if (b.needed) had.needed = true;
    }
    for (const top of c.externals) out.externals.add(top);
    for (const [by, subs] of c.submodules) {
      const had = out.submodules.get(by) ?? new Set<string>();
      for (const s of subs) had.add(s);
      out.submodules.set(by, had);
    }
  }
  // A name followed for one block is no longer "not followed" in the union.
  for (const st of out.stmts.values()) {
    if (!st.unfollowed) continue;
    const names = st.unfollowed.names.filter((n) => !st.refs.has(n));
    st.unfollowed = names.length ? { names, methods: st.unfollowed.methods } : undefined;
  }
  return out;
}

function copyStmt(st: IncludedStmt): IncludedStmt {
  return {
    ...st,
    eagerDeps: new Set(st.eagerDeps),
    lateDeps: new Set(st.lateDeps),
    refs: new Map(st.refs),
    importRewrites: [...st.importRewrites],
    ...(st.keptEntries ? { keptEntries: new Set(st.keptEntries) } : {}),
    ...(st.unfollowed ? { unfollowed: { names: [...st.unfollowed.names], methods: [...st.unfollowed.methods] } } : {}),
    ...(st.askedBy ? { askedBy: new Set(st.askedBy) } : {}),
  };
}

function mergeStmt(a: IncludedStmt, b: IncludedStmt): IncludedStmt {
  for (const k of b.eagerDeps) a.eagerDeps.add(k);
  for (const k of b.lateDeps) a.lateDeps.add(k);
  for (const [n, k] of b.refs) if (!a.refs.has(n)) a.refs.set(n, k);
  // Nested imports are rewritten once per import fact: the same in every closure that reaches them.
  const seen = new Set(a.importRewrites.map((r) => r.imp.span.startByte));
  for (const r of b.importRewrites) if (!seen.has(r.imp.span.startByte)) a.importRewrites.push(r);
  a.rewriteImport ||= b.rewriteImport;
  if (b.askedBy) a.askedBy = new Set([...(a.askedBy ?? []), ...b.askedBy]);
  if (!a.keptEntries || !b.keptEntries) delete a.keptEntries;
  else for (const i of b.keptEntries) a.keptEntries.add(i);
  // Not followed in the union: only what neither followed, in methods neither reached.
  if (!a.unfollowed || !b.unfollowed) delete a.unfollowed;
  else {
    const names = a.unfollowed.names.filter((n) => b.unfollowed!.names.includes(n));
    const methods = a.unfollowed.methods.filter((m) => b.unfollowed!.methods.includes(m));
    a.unfollowed = names.length ? { names, methods } : undefined;
  }
  return a;
}
