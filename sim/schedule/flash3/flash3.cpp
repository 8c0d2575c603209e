#include "sim/schedule/flash3/flash3.h"

#include <cmath>
#include <cstdio>

#include "sim/core/error.h"

namespace iosim::detail {

void require_hopper(const HardwareSpec& hw, const Problem& p) {
  if (hw.arch != "sm_90" && hw.arch != "sm_90a") {
    throw InputError("flash3: needs TMA and wgmma (sm_90, Hopper); " + hw.name + " is " +
                     (hw.arch.empty() ? std::string("of no stated architecture") : hw.arch));
  }
  if (p.d % 8 != 0 || p.d > 256) {
    throw InputError("flash3: FlashAttention-3 runs head dimensions that are multiples of 8 up to 256, got d = " +
                     std::to_string(p.d));
  }
}

TileShape fa3_forward_tiles(const Problem& p) {
  const std::uint64_t d = p.d;
  if (p.dtype == DType::fp8) {
    if (d <= 64) return {192, 160};
    if (d <= 96) return {192, 128};
    if (d <= 128) return {128, 224};
    if (d <= 192) return {128, 160};
    return {128, 128};
  }
  if (d <= 64) return {192, p.causal ? 128u : 192u};
  if (d <= 96) return {192, 144};
  if (d <= 128) return {128, p.causal ? 128u : 176u};
  if (d <= 192) return {128, 112};
  return {128, 80};
}

bool fa3_pv_from_registers(const Problem& p) {
  if (p.dtype == DType::fp8) return true;
  if (p.d <= 64) return p.causal;
  return p.d > 96;
}

TileShape fa3_backward_tiles(const Problem& p) {
  const std::uint64_t d = p.d;
  if (d <= 64) return {128, 128};
  if (d <= 96) return {64, 128};
  if (d <= 128) return {p.causal ? 64u : 80u, 128};
  if (d <= 192) return {64, 96};
  return {64, 80};
}

std::uint32_t fa3_backward_stages(const Problem& p) { return p.d <= 128 ? 2 : 1; }

std::uint32_t fa3_backward_consumers(const Problem& p) { return p.d > 128 && p.d <= 192 ? 3 : 2; }

Fa3Groups fa3_groups(const KernelFamily& family, std::uint32_t requested_warps, std::uint32_t default_consumers) {
  constexpr std::uint32_t kWarpsPerGroup = kFa3GroupThreads / 32;
  std::uint32_t consumers = default_consumers;
  if (requested_warps != 0) {
    if (requested_warps % kWarpsPerGroup != 0 || requested_warps < 2 * kWarpsPerGroup) {
      throw InputError("flash3: warpgroups: --warps must be whole warpgroups of 4, one producer and at least one consumer "
                       "(8, 12, 16), got " + std::to_string(requested_warps));
    }
    consumers = requested_warps / kWarpsPerGroup - 1;
  }
  const RegisterSplit* r = register_split(family, consumers);
  if (r == nullptr) {
    std::string known;
    for (const RegisterSplit& s : family.hopper.register_splits) {
      known += (known.empty() ? "" : ", ") + std::to_string((s.consumer_groups + 1) * kWarpsPerGroup);
    }
    throw InputError("flash3: warpgroups: " + std::to_string(consumers) + " consumer warpgroups (" +
                     std::to_string((consumers + 1) * kWarpsPerGroup) + " warps): FlashAttention-3's " +
                     std::string(family.name) + " kernel splits its registers for " + known + " warps only");
  }
  return {consumers, *r};
}

void require_registers(const Fa3Groups& g, double fragments, TileShape t, const std::string& held) {
  const double need = std::ceil(fragments + kFa3ReservedRegisters);
  if (need <= g.registers.consumer) return;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.0f", std::ceil(fragments));
  throw InputError("flash3: registers: tile B_r=" + std::to_string(t.br) + " B_c=" + std::to_string(t.bc) +
                   ": a consumer thread needs " + buf + " fragment registers (" + held + ") + " +
                   std::to_string(static_cast<int>(kFa3ReservedRegisters)) + " others, more than the " +
                   std::to_string(g.registers.consumer) + " setmaxnreg gives it (" +
                   std::to_string(g.consumers) + " consumer warpgroups)");
}

}  // namespace iosim::detail
