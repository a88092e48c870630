#!/usr/bin/env bash
# Prepares a runner for the catalog workflow with the project's own setup, so CI and a laptop install the same things.
#   setup-runner.sh             Debian container as root: system packages (torch, bubblewrap, git) + npm dependencies
#   setup-runner.sh --npm-only  self-hosted GPU runner that brings its own CUDA torch: npm dependencies only
set -euo pipefail
cd "$(dirname "$0")/../.."
if [[ "${1:-}" == "--npm-only" ]]; then
  npm install --no-audit --no-fund
else
  node pipeline/setup.mjs
fi
