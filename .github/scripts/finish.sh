#!/usr/bin/env bash
# After the shards: merge the partial catalogs into content/catalog, de-duplicate across all of them, write the
# change feed against the published site, and build the site into dist/.
# Usage: finish.sh PARTS_DIR [CATALOG_URL]   (CATALOG_URL: the published site root, e.g. https://me.github.io/nnblocks)
set -euo pipefail
cd "$(dirname "$0")/../.."
if [[ $# -lt 1 ]]; then
  echo "usage: $0 PARTS_DIR [CATALOG_URL]" >&2
  exit 64
fi
parts_dir=$1
catalog_url=${2:-}
catalog=content/catalog

# partial-1 ... partial-N in numeric order, so partial-10 follows partial-9 in the logs.
mapfile -t parts < <(find "$parts_dir" -mindepth 1 -maxdepth 1 -type d -name 'partial-*' | sort -t- -k2,2n)
if [[ ${#parts[@]} -eq 0 ]]; then
  echo "finish: no partial-* directories under $parts_dir" >&2
  exit 1
fi
echo "finish: merging ${#parts[@]} partial catalogs" >&2
npx --no-install nnblocks merge "${parts[@]}" --out "$catalog"
# De-duplication compares blocks across shards, so merge runs it over every partial's blocks.

base=/
previous=()
if [[ -n $catalog_url ]]; then
  previous=(--previous "${catalog_url%/}/api/catalog.json")
  base=$(node -e 'process.stdout.write(new URL(process.argv[1]).pathname)' "$catalog_url")
else
  echo "finish: CATALOG_URL is not set: the change feed is a baseline and the site is built for base path /" >&2
fi
# Fail-soft: an unreachable or first-time site only gives a warning and a baseline feed.
npx --no-install nnblocks changes --catalog "$catalog" "${previous[@]}"

NNBLOCKS_CATALOG=$catalog NNBLOCKS_BASE=$base NNBLOCKS_SITE=$catalog_url npx --no-install astro build
# The feed belongs at the site root (changes.atom's rel=self link points there). The site publishes both files
# itself (src/pages/changes.atom.ts, changes.json.ts); the copy only covers a site built without those pages.
for f in changes.json changes.atom; do
  [[ -e dist/$f ]] || cp "$catalog/$f" "dist/$f"
done
echo "finish: site in dist/ (base $base)" >&2
