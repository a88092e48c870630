#!/usr/bin/env bash
# Re-runs the hostile-code suites as an ordinary user (docs/validate.md, "Threat model"): CI runs them as root, and
# nnblocks must contain the same attacks when it runs as anyone else (bubblewrap then runs unprivileged).
# Run as root: it makes the user if needed, a clone the user owns, and lends it root's validation environment.
# Usage: scripts/hostile-as-user.sh [USER=nnuser]
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
U=${1:-nnuser}
COPY=/tmp/$U-repo
ENVS=${NNBLOCKS_ENV_HOME:-/var/cache/nnblocks/envs} # root's managed environments (made by setup as root)
id "$U" >/dev/null 2>&1 || useradd -m -s /bin/bash "$U"
H=$(getent passwd "$U" | cut -d: -f6)
if [ ! -d "$COPY/.git" ]; then
  git clone -q "$SRC" "$COPY"
else # the user's clone: root brings it to this checkout's commit (git would refuse a repository of another owner)
  git -c safe.directory="$COPY" -C "$COPY" fetch -q "$SRC" HEAD
  git -c safe.directory="$COPY" -C "$COPY" reset -q --hard FETCH_HEAD
fi
rm -rf "$COPY/node_modules"
cp -a "$SRC/node_modules" "$COPY/"
chown -R "$U:" "$COPY"
# The user's environment home is ~/.cache/nnblocks/envs. Root's base goes there as a hard-linked copy (same file
# system: a second, no space): its files stay root's and read-only, its folders are the user's. Where there is none,
# setup below makes one as the user (pip, minutes, about 5.5 GB).
UENVS=$H/.cache/nnblocks/envs
install -d -o "$U" -g "$U" "$H/.cache" "$H/.cache/nnblocks" "$UENVS"
for b in "$ENVS"/base-*/; do
  [ -d "$b" ] || continue
  b=${b%/}
  n=$(basename "$b")
  [ -e "$UENVS/$n" ] && continue
  cp -al "$b" "$UENVS/"
  find "$UENVS/$n" -type d -exec chown "$U:" {} +
done
as_user() { runuser -u "$U" -- env -i HOME="$H" PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 bash -c "cd $COPY && $1"; }
as_user 'node pipeline/setup.mjs --for test'
rc=0
as_user 'timeout 1200 npx vitest run test/validate/hostile.test.ts test/validate/hostile-lies.test.ts test/validate/hostile-budget.test.ts test/validate/walls.test.ts test/validate/pid1.test.ts test/validate/escape.test.ts test/sandbox' || rc=1
as_user 'timeout 1200 npx vitest run test/sources/hostile-checkout.test.ts test/sources/hostile-git.test.ts test/sources/hostile-python.test.ts test/sources/hostile-license.test.ts test/sources/requirements-hostile.test.ts test/build/hostile-build.test.ts test/build/hostile-metadata.test.ts test/cli/hostile-output.test.ts test/assemble/hostile-names.test.ts' || rc=1
# Nothing of a block may outlive the suites, the --no-sandbox cases included.
if pgrep -a -u "$U" -f 'runner[.]py'; then rc=1; fi
exit $rc
