#!/usr/bin/env bash
# The GPU check, run on a bare CUDA machine in one call (docs/validate.md, "GPU check"): unpacks the bundle that
# scripts/gpu-bundle.sh made, runs `nnblocks validate --device cuda` and `--device cpu` on the same blocks, and
# compares the records (scripts/gpu-compare.ts). Needs only bash, coreutils, tar and a python3 that imports torch.
# Exit: 0 all agree; 1 records differ; 2 usage; 3 no GPU (without --cpu-only); 4 setup failed; 5 out of time.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bundle=$root/gpu-bundle/nnblocks-gpu.tar.xz
out=${OUT:-$root/gpu-bundle/check}
work=${TMPDIR:-/tmp}/nnblocks-gpu-check
budget=540 workers="" cpu_only=0 fresh=0 rtol=1e-3 atol=1e-5
only=()
usage() {
  cat >&2 <<EOF
usage: $0 [--only NAME[,NAME...]]... [--budget SECONDS] [--workers N] [--cpu-only] [--fresh]
          [--bundle FILE] [--out DIR] [--work DIR] [--rtol R] [--atol A]
  --budget   wall seconds for the whole check (default $budget; the device allows 600 a command)
  --cpu-only a dry run without a GPU: both runs on the CPU (it checks the bundle and the tools, not CUDA)
  --fresh    unpack again and forget the cached records of an earlier call in --work (default $work)
  results under --out (default \$OUT, else $out): report.txt, summary.json, the records, the log
EOF
  exit 2
}
while (($#)); do
  case $1 in
    --only) IFS=, read -r -a names <<<"${2:?}" && only+=("${names[@]}") && shift ;;
    --budget) budget=${2:?} && shift ;;
    --workers) workers=${2:?} && shift ;;
    --cpu-only) cpu_only=1 ;;
    --fresh) fresh=1 ;;
    --bundle) bundle=${2:?} && shift ;;
    --out) out=${2:?} && shift ;;
    --work) work=${2:?} && shift ;;
    --rtol) rtol=${2:?} && shift ;;
    --atol) atol=${2:?} && shift ;;
    *) usage ;;
  esac
  shift
done

mkdir -p "$out"
rm -f "$out"/{gpu-check.log,doctor.json,report.txt,summary.json,validate-*.json.gz}
exec > >(tee "$out/gpu-check.log") 2>&1
say() { echo "gpu-check [$SECONDS s]: $*"; }
die() { # CODE MESSAGE: report.txt then says why there is no comparison
  local code=$1
  shift
  echo "gpu-check: ERROR (exit $code): $*" | tee "$out/report.txt"
  exit "$code"
}
now() { date +%s.%N; }

# The interpreter: $NNBLOCKS_PYTHON, else the first python3 on PATH (then /usr/bin/python3) that imports torch.
py=${NNBLOCKS_PYTHON:-}
if [[ -z $py ]]; then
  while read -r candidate; do
    if "$candidate" -c 'import torch' 2>/dev/null; then py=$candidate && break; fi
  done < <(type -ap python3 || true; echo /usr/bin/python3)
fi
[[ -n $py ]] || die 4 "no python3 that imports torch on PATH; set NNBLOCKS_PYTHON"
py=$(command -v "$py") || die 4 "NNBLOCKS_PYTHON=$py is not a command"
export NNBLOCKS_PYTHON=$py

# Unpack once per bundle: a second call on a warm machine keeps the work folder, and resumes from its caches.
[[ -f $bundle ]] || die 4 "no bundle at $bundle: run scripts/gpu-bundle.sh here first, and carry gpu-bundle"
sha=$(sha256sum "$bundle" | cut -d' ' -f1)
if ((fresh)) || [[ $(cat "$work/bundle.sha256" 2>/dev/null) != "$sha" ]]; then
  if [[ -d $work && ! -f $work/bundle.sha256 ]] && [[ -n $(ls -A "$work") ]]; then
    die 4 "$work is not empty and not an earlier check's: refusing to wipe it (choose another --work)"
  fi
  say "unpacking $bundle into $work"
  rm -rf "$work" && mkdir -p "$work"
  if command -v xz >/dev/null; then
    tar -xJf "$bundle" -C "$work"
  else
    "$py" -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$bundle" "$work"
  fi
  echo "$sha" >"$work/bundle.sha256"
else
  say "reusing $work (same bundle; finished blocks come from its caches)"
fi
# The sandbox runs as uid 65534 when we are root: bwrap and the python it starts must be reachable by it.
chmod 755 "$work"
home=$work/nnblocks-gpu proj=$work/nnblocks-gpu/project
export PATH=$home/bin:$PATH
sed 's/^/bundle: /' "$home/MANIFEST"
if head=$(git -C "$root" rev-parse HEAD 2>/dev/null) && ! grep -qx "commit=$head" "$home/MANIFEST"; then
  say "warning: the bundle was made from another commit than this checkout's HEAD ($head)"
fi

"$py" - >"$work/env.json" <<'EOF'
import json, platform, sys, torch
env = {"python": sys.executable, "pythonVersion": platform.python_version(), "torch": torch.__version__,
       "cuda": torch.version.cuda, "cudaAvailable": torch.cuda.is_available(), "gpu": None, "gpuCount": 0}
try:
    import torchvision
    env["torchvision"] = torchvision.__version__
except Exception as e:
    env["torchvision"] = "not importable: %s" % e
if env["cudaAvailable"]:
    env.update(gpu=torch.cuda.get_device_name(0), gpuCount=torch.cuda.device_count(),
               cudnn=torch.backends.cudnn.version(), cudnnTf32=torch.backends.cudnn.allow_tf32)
print(json.dumps(env))
EOF
say "environment: $(cat "$work/env.json")"
if ((cpu_only)); then
  devices=(cpu cpu)
  say "--cpu-only: DRY RUN, both runs on the CPU (this checks the bundle and the tools, not CUDA)"
elif grep -q '"cudaAvailable": true' "$work/env.json"; then
  devices=(cuda cpu)
else
  echo "############################################################################"
  echo "# NO GPU: $py sees no CUDA device (torch.cuda.is_available() is false)."
  echo "# This is not a GPU check. Run it on a CUDA machine, or pass --cpu-only."
  echo "############################################################################"
  die 3 "no GPU: nothing was checked"
fi

if [[ $(id -u) == 0 ]]; then
  # The same reach the sandbox will need, checked before any block runs (a venv under /root would fail here).
  node -e '
    const r = require("child_process").spawnSync(process.argv[1], process.argv.slice(2),
      { uid: 65534, gid: 65534, cwd: "/", stdio: "inherit", env: { PATH: process.env.PATH, HOME: "/tmp" } });
    process.exit(r.status ?? 1);' "$py" -c 'import torch' ||
    die 4 "uid 65534 (the sandbox) cannot run $py with torch: make its folders readable (chmod -R o+rX)"
  node -e '
    const r = require("child_process").spawnSync(process.argv[1], ["--version"], { uid: 65534, gid: 65534 });
    process.exit(r.status ?? 1);' "$home/bin/bwrap" || die 4 "uid 65534 cannot run $home/bin/bwrap"
fi

node "$proj/bin/nnblocks.mjs" doctor --json >"$out/doctor.json" || true # judged below, tool by tool
node -e '
  const d = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  let bad = 0;
  for (const c of d.checks) {
    const needed = c.group !== "test"; // chromium and shellcheck: only the test suite needs them
    console.log("doctor: " + (c.found ? "found  " : needed ? "MISSING" : "absent ") + " " + c.name + ": " + c.detail);
    if (needed && !c.found) bad++;
  }
  process.exit(bad ? 1 : 0);' "$out/doctor.json" || die 4 "a tool validation needs is missing (doctor above)"

workers=${workers:-$(node -p 'require("os").availableParallelism()')}
config() { # FILE CACHE: a corpus of the installed torchvision, as content/corpus.json has it
  node -e '
    const [file, python, cacheDir, workers] = process.argv.slice(1);
    const source = { id: "torchvision", kind: "python", distribution: "torchvision", include: ["torchvision/**/*.py"] };
    const cfg = { name: "gpu-check", python, cacheDir, sources: [source], validate: { workers: Number(workers) } };
    require("fs").writeFileSync(file, JSON.stringify(cfg, null, 2));' "$1" "$py" "$2" "$workers"
}
labels=("${devices[0]}" "${devices[1]}")
[[ ${labels[0]} != "${labels[1]}" ]] || labels=(cpu-a cpu-b)
walls=()
for i in 0 1; do
  label=${labels[i]} device=${devices[i]}
  config "$work/corpus-$label.json" "$work/cache-$label"
  # Run A may take half of what is left, run B the rest; 30 s stay for the comparison.
  left=$((budget - SECONDS - 30))
  limit=$((i == 0 ? left / 2 : left))
  ((limit > 10)) || die 5 "no time left for the $label run (budget $budget s)"
  say "validate --device $device ($label), $workers workers, at most $limit s${only[*]:+, only ${only[*]}}"
  start=$(now)
  rc=0
  timeout -k 15 "$limit" node "$proj/bin/nnblocks.mjs" validate --config "$work/corpus-$label.json" \
    --device "$device" --json ${only[@]+--only "${only[@]}"} >"$work/validate-$label.json" || rc=$?
  walls+=("$(echo "$(now) $start" | awk '{printf "%.1f", $1 - $2}')")
  if ((rc == 124 || rc == 137)); then
    die 5 "the $label run did not finish in $limit s: call again on the warm machine to resume from the cache, or use --only"
  fi
  ((rc == 0)) || die 4 "validate --device $device exited $rc (its log is above)"
  gzip -c "$work/validate-$label.json" >"$out/validate-$label.json.gz"
  say "$label run: ${walls[i]} s"
done

say "comparing ${labels[0]} with ${labels[1]} (rtol $rtol, atol $atol)"
rc=0
(cd "$proj" && node --import tsx scripts/gpu-compare.ts --a "$work/validate-${labels[0]}.json" \
  --b "$work/validate-${labels[1]}.json" --label-a "${labels[0]}" --label-b "${labels[1]}" \
  --device-a "${devices[0]}" --device-b "${devices[1]}" --rtol "$rtol" --atol "$atol" --env "$work/env.json" \
  --wall-a "${walls[0]}" --wall-b "${walls[1]}" --workers "$workers" --json "$out/summary.json") \
  >"$out/report.txt" || rc=$?
cat "$out/report.txt"
say "done in $SECONDS s, exit $rc; results in $out"
exit "$rc"
