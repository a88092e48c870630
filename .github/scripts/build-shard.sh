#!/usr/bin/env bash
# One shard of the catalog build: `nnblocks build --shard K/N` writes a partial catalog to OUT (merged later).
# Usage: build-shard.sh CONFIG K N OUT [more `nnblocks build` options, e.g. --no-validate or --device cuda]
set -euo pipefail
cd "$(dirname "$0")/../.."
if [[ $# -lt 4 ]]; then
  echo "usage: $0 CONFIG K N OUT [build options...]" >&2
  exit 64
fi
config=$1 shard=$2 total=$3 out=$4
shift 4
echo "build-shard: shard $shard of $total from $config into $out $*" >&2
exec npx --no-install nnblocks build --config "$config" --shard "$shard/$total" --out "$out" "$@"
