#!/usr/bin/env bash
# Runs the catalog workflow (.github/workflows/catalog.yml) locally, step by step, with the very scripts the workflow
# calls: lint, setup, plan, N build shards, merge + dedup + change feed + site. Skipped, and said so: what only
# GitHub can do (artifact upload, the GPU job, Pages deploy). Artifacts are plain directories under a temp folder.
# Usage: scripts/ci-dry-run.sh [--shards N] [--config FILE] [--catalog-url URL] [--skip-setup]
set -euo pipefail
cd "$(dirname "$0")/.."

shards=2
config=content/corpus.json
catalog_url=${CATALOG_URL:-}
setup=1
while [[ $# -gt 0 ]]; do
  case $1 in
    --shards) shards=$2; shift 2 ;;
    --config) config=$2; shift 2 ;;
    --catalog-url) catalog_url=$2; shift 2 ;;
    --skip-setup) setup=0; shift ;;
    *) echo "usage: $0 [--shards N] [--config FILE] [--catalog-url URL] [--skip-setup]" >&2; exit 64 ;;
  esac
done

work=$(mktemp -d "${TMPDIR:-/tmp}/nnblocks-dry-run.XXXXXX")
pinned=""
cleanup() {
  # The pinned config is generated next to the real one (relative paths resolve from content/): never leave it.
  if [[ -n $pinned && -f $pinned ]]; then rm -f "$pinned"; fi
  rm -rf "$work"
}
trap cleanup EXIT

step() { printf '\n== %s\n' "$*" >&2; }
skip() { printf -- '-- skipped: %s\n' "$*" >&2; }
nnblocks() { npx --no-install nnblocks "$@"; }

step "lint: actionlint on the workflow, shellcheck on its scripts"
npx --no-install tsx .github/scripts/lint-workflows.ts

if [[ $setup == 1 ]]; then
  step "setup (.github/scripts/setup-runner.sh)"
  .github/scripts/setup-runner.sh
else
  skip "setup (--skip-setup)"
fi

step "plan: fetch and pin sources, cache key ($config, $shards shards)"
npx --no-install tsx .github/scripts/plan.ts --config "$config" --shards "$shards" >"$work/plan.json"
pinned=$(node -e 'process.stdout.write(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).config)' "$work/plan.json")
cat "$work/plan.json" >&2
skip "cache restore/save (actions/cache): the local .nnblocks is the cache"

# The steps below need sharded builds, the merge and the change feed: an nnblocks without them (an older checkout)
# is said plainly here, not found out halfway through.
missing=()
if ! nnblocks build --help 2>/dev/null | grep -q -- '--shard'; then missing+=("nnblocks build --shard K/N"); fi
commands=$(nnblocks --help 2>/dev/null || true)
for cmd in merge changes; do
  if ! grep -qE "^  $cmd( |$)" <<<"$commands"; then missing+=("nnblocks $cmd"); fi
done
if [[ ${#missing[@]} -gt 0 ]]; then
  printf '\ndry run INCOMPLETE: this nnblocks lacks %s\n' "$(IFS=,; echo "${missing[*]}")" >&2
  echo "  the shard, merge and site steps need them; everything before this point ran." >&2
  exit 2
fi

mkdir -p "$work/parts"
for ((k = 1; k <= shards; k++)); do
  step "build shard $k/$shards (.github/scripts/build-shard.sh; no GPU runner, so the CPU shard validates)"
  .github/scripts/build-shard.sh "$pinned" "$k" "$shards" "$work/parts/partial-$k"
done
skip "upload-artifact / download-artifact: the partials stay in $work/parts"
skip "validate-gpu (runs only when vars.GPU_RUNNER is set)"

step "merge, dedup, change feed, site (.github/scripts/finish.sh)"
.github/scripts/finish.sh "$work/parts" "$catalog_url"
skip "upload-pages-artifact and deploy-pages (GitHub only)"
printf '\ndry run OK: catalog in content/catalog, site in dist/ (preview: npx nnblocks preview dist)\n' >&2
