#!/usr/bin/env bash
# The contig branch on one GPU (the device tool), from the repository root, carrying .deps/usr.tar.gz and
# .deps/cutlass.tar.xz (built as results/gpu-2026-12-06/run13.sh builds); everything lands in
# $OUT/contig-<config>.tar.gz. Under 6 minutes:
#   - flash2's forward compiled twice (contiguous and paged K/V, a template argument chosen at launch):
#     the GPU tests of flash2/flash1 forward correctness, unpaged (kernels, masked) and paged/windowed
#     (window_paged), and the compiled table's check (ptxas-registers.py --check) of the lean build;
#   - iosim validate --quick on the card's config, to set beside results/h100-2026-12-07 (today's
#     kernels before the change: flash2 forward d 128 +17.4% over 12-06's);
#   - flash2 forward at d 128 and 64 (4 x 16, n 1024), unpaged and with pages of 64 rows, so that the
#     paged step's price (step-mix-sm90.csv's paged rows) is measured too;
#   - last, where time is left: ptxas -v of every flash2 forward row of the full menu (generate_kernels.py
#     --full's files, compiled as the committed table's header says) and scripts/ptxas-registers.py --table --only flash2_fwd on a
#     copy of cuda/kernels/compiled-sm90.csv (compiled-sm90.csv in the archive: the table with the
#     contiguous instantiations' registers, which the 2-core helper machine had no time to compile).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
res=/tmp/contig-res build=build-gpu
mkdir -p "${OUT:-/tmp/out}" "$res"
tar -xzf .deps/usr.tar.gz -C .deps && tar -xJf .deps/cutlass.tar.xz -C .deps
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}"
export IOSIM_CONFIG_DIR="$PWD/configs" IOSIM_SCENARIO_DIR="$PWD/scenarios" PATH="/usr/local/cuda/bin:$PATH"
export CMAKE_PREFIX_PATH="$PWD/.deps/usr/lib/x86_64-linux-gnu/cmake:$PWD/.deps/usr"  # an environment list: colons
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case "$gpu" in *H100*) cfg=h100 ;; *) cfg=h200 ;; esac
finish() { cp results/contig-2026-12-07/run.sh "$res/"; tar -czf "${OUT:-/tmp/out}/contig-$cfg.tar.gz" -C "$res" .; }
trap finish EXIT
t0=$SECONDS
stamp() { echo "$1: exit $2 at $((SECONDS - t0)) s" | tee -a "$res/stamps.txt"; }
left() { echo $((${CONTIG_BUDGET:-330} - SECONDS + t0)); }
{ date -u; echo "GPU: $gpu (config $cfg.yaml)"; git log -1 --oneline 2>/dev/null; nvidia-smi; nvcc --version | tail -2; } \
  >"$res/environment.txt" 2>&1
rm -f "$build/CMakeCache.txt"
tests=(kernels window_paged masked)
targets="iosim"; for t in "${tests[@]}"; do targets+=" gpu_test_$t"; done
timeout 200 bash -c "cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DIOSIM_STATIC_DEPS=ON -DIOSIM_BUILD_BENCH=OFF \
    -DIOSIM_BUILD_TESTS=ON -DIOSIM_NOTEBOOK_TESTS=OFF -DIOSIM_PYTHON=OFF -DIOSIM_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
    && cmake --build $build -j$(nproc) --target $targets" >"$res/build.log" 2>&1
stamp build $?
tail -3 "$res/build.log"
run() {  # name, timeout, command...
  local name=$1 limit=$2; shift 2
  if [ "$(left)" -le "$limit" ]; then echo "$name: not run (no time left)" | tee -a "$res/stamps.txt"; return; fi
  timeout "$limit" "$@" >"$res/$name.txt" 2>&1
  stamp "$name" $?
}
for t in "${tests[@]}"; do
  [ -x "$build/tests/gpu/gpu_test_$t" ] || { echo "gpu_test_$t: not built" | tee -a "$res/stamps.txt"; continue; }
  run "gpu-test-$t" 60 "$build/tests/gpu/gpu_test_$t"
done
if command -v python3 >/dev/null; then
  run compiled-table 30 python3 scripts/ptxas-registers.py --check cuda/kernels/compiled-sm90.csv --objects "$build"
fi
validate() {
  local name=$1; shift
  run "validate-$name" 40 "$build/iosim" validate --config "$cfg.yaml" --out "$res" --runs 5 --warmup 2 "$@"
}
validate quick --quick
for d in 128 64; do
  validate "flash2-fwd-d$d-unpaged" --schedule flash2 --pass fwd --shape "4,16,1024,$d"
  validate "flash2-fwd-d$d-page64" --schedule flash2 --pass fwd --shape "4,16,1024,$d" --page-size 64
done
if [ "$(left)" -gt 100 ] && command -v python3 >/dev/null; then
  gen=/tmp/contig-gen
  mkdir -p "$gen/include/iosim_generated"
  python3 cuda/kernels/generate_kernels.py cuda/kernels/menu.csv --model "$gen/include/iosim_generated/kernel_menu.h" &&
    python3 cuda/kernels/generate_kernels.py cuda/kernels/menu.csv --cuda "$gen" --full
  # One log a file (parallel compiles' lines would interleave), joined after; $1, $2: the inner shell's.
  # shellcheck disable=SC2016
  find "$gen/inst" -name 'flash2_fwd_d*.cu' | timeout $(($(left) - 20)) xargs -P "$(nproc)" -I{} \
    sh -c 'nvcc -O3 -DNDEBUG -std=c++20 -arch=sm_90 -cubin -Xptxas -v -I. -I"$1" -I"$1/include" -o /dev/null "$2" \
      >"$2.log" 2>&1' sh "$gen" {}
  stamp ptxas-flash2-fwd $?
  cat "$gen"/inst/*/flash2_fwd_d*.cu.log >"$res/ptxas-flash2-fwd.log"
  cp cuda/kernels/compiled-sm90.csv "$res/compiled-sm90.csv"
  run ptxas-table 20 python3 scripts/ptxas-registers.py --log "$res/ptxas-flash2-fwd.log" --out "$res/ptxas-flash2-fwd.json" \
    --table "$res/compiled-sm90.csv" --only flash2_fwd --flags "nvcc -O3 -DNDEBUG -arch=sm_90 -cubin -Xptxas -v of each \
instantiation file cuda/kernels/generate_kernels.py --full writes"
fi
