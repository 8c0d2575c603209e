#!/bin/sh
# mk.sh SRC_ROOT OUT: builds one_pass.cpp against SRC_ROOT/build (a Release build of iosim) into OUT.
B=$1/build
g++ -O3 -DNDEBUG -g -std=c++20 -DFMT_SHARED -I"$1" -I"$B/include/cli" -I"$B/include/config" -I"$B/include/sim" \
  -I"$B/generated/include" -I"$B/include/core" -I"$B/include/report" -I"$B/include/cuda_api" -isystem /usr/include/eigen3 \
  "$(dirname "$0")/one_pass.cpp" -o "$2" "$B/src/libiosim_cli.a" "$B/src/libiosim_config.a" \
  /usr/lib/x86_64-linux-gnu/libyaml-cpp.so.0.7.0 "$B/src/libiosim_report.a" "$B/cuda/loader/libiosim_gpu_loader.a" \
  "$B/sim/libiosim_sim.a" "$B/sim/libiosim_core.a" -ldl /usr/lib/x86_64-linux-gnu/libfmt.so.9.1.0
