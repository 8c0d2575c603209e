// launch(), prepare_backward(), compiled_tiles(), compiled_variants(), kernel_shape(), unsupported(),
// unsupported_in_build() and kernels_of(): from a KernelSpec to the kernels that run it (cuda/kernels/registry.h
// for the flash schedules, cuda/kernels/naive.h for naive) and to its schedule's registry entry.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cuda/backend.h"
#include "cuda/kernels/decode_plan.h"
#include "cuda/kernels/flash3/refusals.h"
#include "cuda/kernels/launch.h"
#include "cuda/kernels/naive.h"
#include "cuda/kernels/registry.h"
#include "cuda/kernels/tensors.h"
#include "cuda/window_paging.h"
#include "cuda/runtime/check.h"

namespace iosim::gpu {

std::string detail::spec_text(const KernelSpec& s) {
  return std::string(s.schedule) + (s.pass == Direction::fwd ? " fwd" : " bwd") + " d=" + std::to_string(s.d) + " " +
         std::string(name(s.dtype));
}

namespace {

using detail::spec_text;

constexpr int kMinCcMajor = 8;            // mma.sync bf16, ldmatrix, cp.async
constexpr std::int64_t kMaxGridY = 65535;  // flash2 grids put batch · heads in y

std::string tiles_text(const std::vector<std::pair<int, int>>& tiles) {
  std::string out;
  for (const auto& [br, bc] : tiles) out += (out.empty() ? "" : ", ") + std::to_string(br) + "x" + std::to_string(bc);
  return out.empty() ? "none" : out;
}

/// "128x64" plus " (8 warps, 3 stages)" for what the spec pins.
std::string variant_text(const KernelSpec& s) {
  std::string t = std::to_string(s.br) + "x" + std::to_string(s.bc);
  if (s.warps != 0 || s.stages != 0) {
    t += " (";
    if (s.warps != 0) t += std::to_string(s.warps) + " warps";
    if (s.stages != 0) t += std::string(s.warps != 0 ? ", " : "") + std::to_string(s.stages) + " stages";
    t += ")";
  }
  return t;
}

/// The compiled (warps, stages) of one tile, e.g. "4w2s, 8w1s".
std::string shapes_text(const KernelSpec& s) {
  std::string out;
  for (const KernelVariant& v : compiled_variants(s.schedule, s.pass, s.d, s.dtype)) {
    if (v.br == s.br && v.bc == s.bc) {
      out += (out.empty() ? "" : ", ") + std::to_string(v.warps) + "w" + std::to_string(v.stages) + "s";
    }
  }
  return out.empty() ? "none" : out;
}

}  // namespace

std::string unsupported_in_build(const KernelSpec& s) {
  if (cuda_kernels(s.schedule) == nullptr) return "unknown schedule";  // no registry entry names these kernels
  if (const std::string why = detail::unsupported_decode(s); !why.empty()) return why;
  if (const std::string why = detail::flash3_unsupported_in_build(s); !why.empty()) return why;
  if (s.pass != Direction::fwd && s.pass != Direction::bwd) return "unknown pass";
  if (s.batch < 1 || s.heads < 1) {
    return "batch and heads must be at least 1 (got " + std::to_string(s.batch) + ", " + std::to_string(s.heads) + ")";
  }
  if (s.n < 1 || s.n_kv < 1) {
    return "n and n_kv must be at least 1 (got n = " + std::to_string(s.n) + ", n_kv = " + std::to_string(s.n_kv) + ")";
  }
  if (s.kv_heads < 0 || (s.kv_heads > 0 && s.heads % s.kv_heads != 0)) {
    return "kv_heads (" + std::to_string(s.kv_heads) + ") must divide heads (" + std::to_string(s.heads) + ")";
  }
  if (!compiled_head_dim(s.d)) {
    std::string dims;
    for (std::size_t i = 0; i < kHeadDims.size(); ++i) {
      dims += (i == 0 ? "" : i + 1 == kHeadDims.size() ? " or " : ", ") + std::to_string(kHeadDims[i]);
    }
    return "d = " + std::to_string(s.d) + ": the kernels take d = " + dims;
  }
  if (s.dtype != DType::fp16 && s.dtype != DType::bf16) {
    return "element type " + std::string(name(s.dtype)) + ": the kernels take fp16 or bf16";
  }
  const std::int64_t bh = static_cast<std::int64_t>(s.batch) * s.heads;
  if (bh > kMaxGridY) return "batch x heads = " + std::to_string(bh) + " exceeds the grid limit of 65535";
  if (bh * s.n > std::numeric_limits<int>::max() || bh * s.n_kv > std::numeric_limits<int>::max()) {
    return "batch x heads x rows exceeds 2^31 - 1 rows";
  }
  if (const std::string why = window_paging_unsupported(s); !why.empty()) return spec_text(s) + ": " + why;
  if (described(s).library) return "";
  if (s.warps < 0 || s.stages < 0) {
    return "warps and stages must be 0 (the tile's default) or positive (got " + std::to_string(s.warps) + ", " +
           std::to_string(s.stages) + ")";
  }
  if (s.br == 0 && s.bc == 0) {
    return spec_text(s) + ": no tile given (B_r = B_c = 0); compiled tiles: " +
           tiles_text(compiled_tiles(s.schedule, s.pass, s.d, s.dtype));
  }
  if (detail::find_kernel(s) == nullptr) {
    KernelSpec tile_only = s;
    tile_only.warps = tile_only.stages = 0;
    if (detail::find_kernel(tile_only) != nullptr) {
      return spec_text(s) + ": tile " + variant_text(s) + " is not compiled in this build (compiled warps and stages of " +
             std::to_string(s.br) + "x" + std::to_string(s.bc) + ": " + shapes_text(s) +
             "; -DIOSIM_CUDA_FULL_TILES=ON compiles the whole menu)";
    }
    return spec_text(s) + ": tile " + std::to_string(s.br) + "x" + std::to_string(s.bc) +
           " is not compiled in this build (compiled: " + tiles_text(compiled_tiles(s.schedule, s.pass, s.d, s.dtype)) +
           "; -DIOSIM_CUDA_FULL_TILES=ON compiles the whole menu)";
  }
  return "";
}

std::vector<std::pair<int, int>> compiled_tiles(std::string_view schedule, Direction pass, int d, DType dtype) {
  std::vector<std::pair<int, int>> tiles;
  for (const KernelVariant& v : compiled_variants(schedule, pass, d, dtype)) {
    if (std::find(tiles.begin(), tiles.end(), std::pair{v.br, v.bc}) == tiles.end()) tiles.emplace_back(v.br, v.bc);
  }
  return tiles;
}

std::vector<KernelVariant> compiled_variants(std::string_view schedule, Direction pass, int d, DType dtype) {
  std::vector<KernelVariant> out;
  for (const detail::KernelEntry& e : detail::kernel_registry()) {
    if (e.dispatched && e.schedule == schedule && e.pass == pass && e.d == d && e.dtype == dtype) {
      out.push_back({e.br, e.bc, e.warps, e.stages});
    }
  }
  return out;
}

KernelShape kernel_shape(const KernelSpec& spec) {
  if (described(spec).library) return {};
  const detail::KernelEntry* e = detail::find_kernel(spec);
  if (e == nullptr) return KernelShape{};
  if (!described(spec).decode) return KernelShape{e->warps, e->stages};
  const bool known = spec.splits > 0 || detail::device_sm_count() > 0;
  return KernelShape{e->warps, e->stages, known ? detail::decode_plan(spec).splits : 0};
}

std::string unsupported(const KernelSpec& spec) {
  if (std::string why = unsupported_in_build(spec); !why.empty()) return why;
  std::string why;
  if (!available(&why)) return why;
  const DeviceInfo dev = device_info();
  if (dev.cc_major < kMinCcMajor) {
    return "needs compute capability 8.0 or newer; " + dev.name + " is " + std::to_string(dev.cc_major) + "." +
           std::to_string(dev.cc_minor);
  }
  if (described(spec).hopper_tma && !(why = detail::flash3_unsupported_on(dev)).empty()) return why;
  if (!described(spec).library) {
    const detail::KernelEntry* e = detail::find_kernel(spec);
    if (e->smem_bytes > dev.smem_per_block_optin) {
      return spec_text(spec) + " tile " + variant_text(spec) + " needs " +
             std::to_string(e->smem_bytes) + " bytes of shared memory per block; " + dev.name + " allows " +
             std::to_string(dev.smem_per_block_optin);
    }
  }
  std::uint64_t bytes = 0;
  for (const Tensor t : detail::held_tensors(spec)) bytes += detail::tensor_bytes(spec, t);
  if (bytes > dev.global_bytes) {
    return "its buffers need " + std::to_string(bytes >> 20) + " MiB; " + dev.name + " has " +
           std::to_string(dev.global_bytes >> 20) + " MiB";
  }
  return "";
}

namespace detail {

const CudaKernels& kernels_of(const KernelSpec& spec) {
  const CudaKernels* k = cuda_kernels(spec.schedule);
  if (k == nullptr) throw std::invalid_argument("no schedule's registry entry names these CUDA kernels");
  return *k;
}

void launch(const KernelSpec& spec, AttentionBuffers& buf, cudaStream_t stream) {
  if (described(spec).library) {
    spec.pass == Direction::fwd ? naive_forward(spec, buf, stream) : naive_backward(spec, buf, stream);
    return;
  }
  const KernelEntry* e = find_kernel(spec);
  if (e == nullptr) throw std::invalid_argument("launch: " + unsupported_in_build(spec));
  e->launch(spec, buf, stream);
}

void prepare_backward(const KernelSpec& spec, AttentionBuffers& buf, cudaStream_t stream) {
  KernelSpec fwd = spec;
  fwd.pass = Direction::fwd;
  fwd.warps = fwd.stages = 0;  // the backward's warps and stages say nothing about its forward's
  if (!described(fwd).library && find_kernel(fwd) == nullptr) {
    // The forward is not compiled for the backward's tile (the default build has one tile per pass):
    // its default tile writes the same O and statistics.
    const auto tiles = compiled_tiles(fwd.schedule, fwd.pass, fwd.d, fwd.dtype);
    if (tiles.empty()) throw std::invalid_argument("prepare_backward: " + unsupported_in_build(fwd));
    fwd.br = tiles.front().first;
    fwd.bc = tiles.front().second;
  }
  launch(fwd, buf, stream);
}

}  // namespace detail

}  // namespace iosim::gpu
