#!/usr/bin/env bash
# The build step of the nnblocks action (action.yml): `nnblocks build` of the caller's config into OUT (and the site
# into SITE), then the two folders as step outputs. Runs in the caller's checkout; nnblocks is this script's own tree.
# Inputs from the environment: CONFIG (required), OUT, SITE (empty: no site), BASE, SITE_URL, VALIDATE, DEVICE;
# GITHUB_OUTPUT and GITHUB_REPOSITORY as the runner sets them.
set -euo pipefail
nnblocks_dir=$(cd "$(dirname "$0")/../.." && pwd)
config=${CONFIG:?the action needs the config input}
out=${OUT:-nnblocks-catalog}
site=${SITE:-}
base=${BASE:-}

args=(build --config "$config" --out "$out")
# No --device unless one was asked for: the config's validate.device applies otherwise.
if [[ -n ${DEVICE:-} ]]; then args+=(--device "$DEVICE"); fi
if [[ ${VALIDATE:-true} == false ]]; then args+=(--no-validate); fi
if [[ -n $site ]]; then
  if [[ -z $base ]]; then
    # The config's site.base when it has one, else a GitHub Pages project site's path.
    base=$(node -e 'const c = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); process.stdout.write(c.site?.base ?? "")' "$config")
  fi
  if [[ -z $base ]]; then
    repo=${GITHUB_REPOSITORY#*/}
    if [[ -z $repo || $repo == *.github.io ]]; then base=/; else base=/$repo; fi
  fi
  args+=(--site "$site" --base "$base")
fi
if [[ -n ${SITE_URL:-} ]]; then export NNBLOCKS_SITE=$SITE_URL; fi

echo "nnblocks: ${args[*]}" >&2
node "$nnblocks_dir/bin/nnblocks.mjs" "${args[@]}"

if [[ -n ${GITHUB_OUTPUT:-} ]]; then
  echo "catalog=$(realpath "$out")" >>"$GITHUB_OUTPUT"
  if [[ -n $site ]]; then echo "site=$(realpath "$site")" >>"$GITHUB_OUTPUT"; else echo "site=" >>"$GITHUB_OUTPUT"; fi
fi
