#!/usr/bin/env bash
# Makes the one archive a bare CUDA machine needs to run scripts/gpu-check.sh (docs/validate.md, "GPU check"): this
# machine's node, the committed project (`git archive HEAD`) with node_modules pruned to what validation needs, and
# bwrap with its libraries, as gpu-bundle/nnblocks-gpu.tar.xz (git-ignored). Runs here, never on the device.
# Usage: scripts/gpu-bundle.sh [OUT_FILE]     (env MAX_MIB: size limit, default 60; the device carries 64 MiB)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/gpu-bundle/nnblocks-gpu.tar.xz}
max_mib=${MAX_MIB:-60}
say() { echo "gpu-bundle: $*" >&2; }
die() {
  say "error: $*"
  exit 1
}

for tool in node npm bwrap git tar xz ldd; do
  command -v "$tool" >/dev/null || die "$tool not found on PATH"
done
modules=$(readlink -f "$root/node_modules") || die "no node_modules in $root: run npm install first"
[[ -d $modules/tsx ]] || die "$modules has no tsx: run npm install first"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
stage=$tmp/nnblocks-gpu
mkdir -p "$stage/bin" "$stage/lib" "$stage/libexec" "$stage/project"

# The project as committed: the device runs exactly HEAD (uncommitted changes are left out, and said so).
commit=$(git -C "$root" rev-parse HEAD)
dirty=$(git -C "$root" status --porcelain --untracked-files=no | wc -l)
((dirty == 0)) || say "warning: $dirty uncommitted change(s) are NOT in the bundle (it holds HEAD $commit)"
git -C "$root" archive HEAD | tar -x -C "$stage/project"

# node_modules: a copy, pruned there (never the shared one), then the site's packages and build leftovers removed.
say "copying and pruning node_modules from $modules"
cp -a "$modules" "$stage/project/node_modules"
(cd "$stage/project" && npm prune --omit=dev --offline --ignore-scripts --no-audit --no-fund --loglevel=error)
nm=$stage/project/node_modules
for pkg in astro @astrojs shiki @shikijs pagefind @pagefind playwright-core @img @rolldown vite rollup lightningcss \
  typescript prismjs @babel csso @rollup sharp; do
  rm -rf "${nm:?}/$pkg"
done
rm -rf "$nm"/lightningcss-* # the platform builds of lightningcss, a package apart
# better-sqlite3 needs build/Release/better_sqlite3.node alone; tree-sitter and its grammar load a linux-x64 prebuild
# (the grammar keeps src/node-types.json, which its binding reads).
bs=$nm/better-sqlite3
find "$bs/build" -mindepth 1 -maxdepth 1 ! -name Release -exec rm -rf {} +
find "$bs/build/Release" -mindepth 1 -maxdepth 1 ! -name better_sqlite3.node -exec rm -rf {} +
rm -rf "$bs/deps" "$bs/src"
for ts in "$nm/tree-sitter" "$nm/tree-sitter-python"; do
  find "$ts/prebuilds" -mindepth 1 -maxdepth 1 ! -name linux-x64 -exec rm -rf {} +
  rm -rf "$ts/vendor" "$ts/build"
  find "$ts/src" -mindepth 1 ! -name node-types.json -delete 2>/dev/null || true
done
rm -f "$nm/tree-sitter-python/tree-sitter-python.wasm"
find "$nm" \( -name '*.o' -o -name '*.a' -o -name '*.map' -o -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' \) \
  -type f -delete

# node (one file), and bwrap behind a wrapper that points only bwrap at the libraries it was linked with here.
cp "$(readlink -f "$(command -v node)")" "$stage/bin/node"
cp "$(readlink -f "$(command -v bwrap)")" "$stage/libexec/bwrap"
ldd "$stage/libexec/bwrap" | awk '$3 ~ /^\// {print $3}' | while read -r lib; do
  case $(basename "$lib") in libc.so.* | ld-linux*) ;; *) cp -L "$lib" "$stage/lib/" ;; esac
done
cat >"$stage/bin/bwrap" <<'EOF'
#!/bin/sh
# bubblewrap from the bundle, with the libraries it was built against (not put on anyone else's path).
here=$(dirname "$(readlink -f "$0")")/..
LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$here/libexec/bwrap" "$@"
EOF
chmod 755 "$stage/bin/bwrap" "$stage/bin/node" "$stage/libexec/bwrap"
chmod -R a+rX "$stage"
{
  echo "commit=$commit"
  echo "uncommitted=$dirty"
  echo "node=$(node --version)"
  echo "bwrap=$(bwrap --version)"
  echo "libs=$(cd "$stage/lib" && echo ./*)"
  echo "made=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
} >"$stage/MANIFEST"

say "unpacked size: $(du -sh "$stage" | cut -f1) (node_modules $(du -sh "$nm" | cut -f1)); compressing"
mkdir -p "$(dirname "$out")"
XZ_OPT=${XZ_OPT:--6 -T2} tar -C "$tmp" -cJf "$out.part" nnblocks-gpu
mv "$out.part" "$out"
bytes=$(stat -c %s "$out")
mib=$(((bytes + 1048575) / 1048576))
if ((bytes > max_mib * 1048576)); then
  die "$out is $mib MiB, over the $max_mib MiB limit (the device carries 64 MiB with the working tree)"
fi
say "wrote $out: $bytes bytes ($mib MiB), commit $commit"
