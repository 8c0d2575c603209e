#include "src/config/hardware_config.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cstdio>
#include <string>
#include <vector>

#include "sim/core/peer_correction.h"
#include "sim/memory/replacement.h"
#include "sim/schedule/kernel_family.h"
#include "src/config/search_path.h"
#include "src/config/yaml_map.h"

namespace iosim::config {

namespace {

SmSpec read_sm(YamlMap m) {
  SmSpec s;
  s.count = m.positive_u32("count");
  s.sram_per_sm = Bytes(m.positive_integer("sram_per_sm_bytes"));
  s.sram_per_block = Bytes(m.positive_integer("sram_per_block_bytes"));
  s.registers_per_sm = m.positive_u32("registers_per_sm");
  s.max_registers_per_thread = m.positive_u32("max_registers_per_thread");
  s.max_threads_per_sm = m.positive_u32("max_threads_per_sm");
  s.max_threads_per_block = m.positive_u32("max_threads_per_block");
  s.max_blocks_per_sm = m.positive_u32("max_blocks_per_sm");
  s.sram_bytes_per_clock = m.positive_u32("sram_bytes_per_clock");
  s.sfu_ops_per_clock = m.positive_u32("sfu_ops_per_clock");
  return s;
}

L2Spec read_l2(YamlMap m) {
  L2Spec l;
  l.capacity = Bytes(m.positive_integer("size_bytes"));
  l.line_bytes = m.positive_u32("line_bytes");
  l.sector_bytes = m.positive_u32("sector_bytes");
  l.ways = m.positive_u32("ways");
  l.bytes_per_clock = m.positive_u32("bytes_per_clock");
  l.partitions = m.positive_u32("partitions");
  return l;
}

HbmSpec read_hbm(YamlMap m) {
  HbmSpec h;
  h.bandwidth_gb_per_s = m.positive_number("bandwidth_gb_per_s");
  return h;
}

ClockSpec read_clocks(YamlMap m) {
  ClockSpec c;
  c.sm_mhz = m.positive_number("sm_mhz");
  return c;
}

PeakSpec read_peak(YamlMap m) {
  PeakSpec p;
  p.tensor_fp16_tflops = m.positive_number("tensor_fp16_tflops");
  p.tensor_bf16_tflops = m.positive_number("tensor_bf16_tflops");
  p.tensor_fp8_tflops = m.non_negative_number("tensor_fp8_tflops");
  p.fp32_tflops = m.positive_number("fp32_tflops");
  return p;
}

/// The keys of PipelineSpec, as in `pipeline:`.
std::vector<std::string> pipeline_keys() {
  std::vector<std::string> keys;
  for (const PipelineField& f : kPipelineFields) keys.emplace_back(f.key);
  return keys;
}

/// `pipeline:`: every figure required, each a positive number, but the optional ones (wgmma's: only
/// Hopper has it), which may be absent or 0 (not known).
PipelineSpec read_pipeline(YamlMap m) {
  PipelineSpec p;
  for (const PipelineField& f : kPipelineFields) {
    if (!f.optional) {
      p.*(f.field) = m.positive_number(f.key);
    } else if (m.has(f.key)) {
      p.*(f.field) = m.non_negative_number(f.key);
    }
  }
  return p;
}

/// A calendar date written YYYY-MM-DD (month 01-12, day 01-31).
bool is_iso_date(const std::string& s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i != 4 && i != 7 && std::isdigit(static_cast<unsigned char>(s[i])) == 0) return false;
  }
  const int month = std::stoi(s.substr(5, 2));
  const int day = std::stoi(s.substr(8, 2));
  return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

std::vector<std::string> measured_keys() {
  std::vector<std::string> keys = {"hbm_gb_per_s", "l2_gb_per_s", "l2_red_gb_per_s", "sram_gb_per_s", "tensor_fp16_tflops",
                                   "tensor_bf16_tflops", "gemm_fp16_tflops", "wgmma_clock_mhz", "exp2_g_per_s", "date"};
  for (const std::string& k : pipeline_keys()) keys.push_back(k);
  return keys;
}

/// The bounds of what the model simulates (docs/configs.md) that involve two keys, checked before any
/// work: the L2 model holds every line of the cache.
void check_limits(const std::string& path, const HardwareSpec& hw) {
  const auto at_most = [&](const char* key, std::uint64_t value, std::uint64_t limit, const char* why) {
    if (value > limit) {
      throw ConfigError(path + ": " + key + ": at most " + std::to_string(limit) + " " + why + ", got " +
                        std::to_string(value));
    }
  };
  // sm.count, sm.max_blocks_per_sm and l2.size_bytes are checked as they are read (value_limits.h).
  at_most("l2.size_bytes", hw.l2.capacity.value / hw.l2.line_bytes, kMaxL2Lines,
          "lines (l2.size_bytes ÷ l2.line_bytes, sets × ways) are modelled");
  if (hw.l2.partitions == 2 && hw.l2.capacity.value % (2 * std::uint64_t{hw.l2.line_bytes} * hw.l2.ways) != 0) {
    throw ConfigError(path + ": l2.size_bytes must be a whole number of sets (line_bytes × ways) in each of the "
                      "2 partitions");
  }
}

/// One entry of kernel_rates, checked: a family priced by measured rates, once; as many
/// rates as row lengths (one without them), the row lengths increasing.
KernelRate read_kernel_rate(YamlMap& r, const std::vector<KernelRate>& before) {
  KernelRate k;
  k.family = r.string("family");
  const auto& families = kernel_families();
  const auto family = std::find_if(families.begin(), families.end(),
                                   [&](const KernelFamily& f) { return f.name == k.family; });
  if (family == families.end() || family->model != FamilyModel::measured_rate) {
    std::string known;
    for (const KernelFamily& f : families) {
      if (f.model == FamilyModel::measured_rate) known += (known.empty() ? "" : ", ") + std::string(f.name);
    }
    r.invalid("family", "'" + k.family + "' is not a family priced by measured rates (known: " + known + ")");
  }
  for (const KernelRate& b : before) {
    if (b.family == k.family) r.invalid("family", "'" + k.family + "' is given twice");
  }
  k.row_lengths = r.positive_integer_list("row_lengths");
  k.gb_per_s = r.positive_number_list("gb_per_s");
  if (k.gb_per_s.empty()) r.invalid("gb_per_s", "missing (required)");
  if (k.gb_per_s.size() != std::max<std::size_t>(1, k.row_lengths.size())) {
    r.invalid("gb_per_s", "expected " + std::to_string(std::max<std::size_t>(1, k.row_lengths.size())) +
                              " rates (one a row length), got " + std::to_string(k.gb_per_s.size()));
  }
  for (std::size_t i = 1; i < k.row_lengths.size(); ++i) {
    if (k.row_lengths[i] <= k.row_lengths[i - 1]) r.invalid("row_lengths", "expected increasing row lengths");
  }
  if (std::optional<std::string> src = r.optional_string("source")) k.source = *src;
  return k;
}

}  // namespace

MeasuredSpec read_measured(YamlMap m) {
  MeasuredSpec s;
  const auto opt = [&](const char* key, double& out) {
    if (m.has(key)) out = m.positive_number(key);
  };
  opt("hbm_gb_per_s", s.hbm_gb_per_s);
  opt("l2_gb_per_s", s.l2_gb_per_s);
  opt("l2_red_gb_per_s", s.l2_red_gb_per_s);
  opt("sram_gb_per_s", s.sram_gb_per_s);
  opt("tensor_fp16_tflops", s.tensor_fp16_tflops);
  opt("tensor_bf16_tflops", s.tensor_bf16_tflops);
  opt("gemm_fp16_tflops", s.gemm_fp16_tflops);
  opt("wgmma_clock_mhz", s.wgmma_clock_mhz);
  opt("exp2_g_per_s", s.exp2_g_per_s);
  for (const PipelineField& f : kPipelineFields) opt(f.key, s.pipeline.*(f.field));
  if (std::optional<std::string> date = m.optional_string("date")) s.date = *date;
  return s;
}

namespace {

/// The file of a corrected_by: entry: beside the config that names it, else by name as -c finds a config.
std::string peer_path(const std::string& config_path, const std::string& name) {
  const std::string::size_type slash = config_path.find_last_of('/');
  if (slash != std::string::npos) {
    const std::string beside = config_path.substr(0, slash + 1) + name;
    if (std::FILE* f = std::fopen(beside.c_str(), "rb")) {
      std::fclose(f);
      return beside;
    }
  }
  return find_file(name, config_dir(), "config");
}

HardwareSpec read_hardware(const YAML::Node& config, const std::string& path, std::vector<std::string>* peers);

/// Fills what `hw` did not measure from the calibrated configs `peers` names (sim/core/peer_correction.h):
/// each of the same architecture, read without its own corrected_by (no chains).
void correct(HardwareSpec& hw, const std::string& path, const std::vector<std::string>& peers) {
  std::vector<HardwareSpec> specs;
  for (const std::string& name : peers) {
    const std::string file = peer_path(path, name);
    HardwareSpec peer = read_hardware(load_yaml_file(file), file, nullptr);
    if (peer.arch != hw.arch) {
      throw ConfigError(path + ": corrected_by: '" + name + "' is " + peer.arch + ", not " + hw.arch +
                        " (only GPUs of the same architecture correct its figures)");
    }
    specs.push_back(std::move(peer));
  }
  hw.corrected = correct_from_peers(hw, specs);
}

}  // namespace

HardwareSpec load_hardware(const std::string& path) { return load_hardware(load_yaml_file(path), path); }

HardwareSpec load_hardware(const YAML::Node& config, const std::string& path) {
  std::vector<std::string> peers;
  HardwareSpec hw = read_hardware(config, path, &peers);
  if (!peers.empty()) correct(hw, path, peers);
  return hw;
}

namespace {

/// A config's own figures; its corrected_by: names into `peers` (nullptr: a peer's, whose list is ignored).
HardwareSpec read_hardware(const YAML::Node& config, const std::string& path, std::vector<std::string>* peers) {
  YamlMap top(config, path, "", {"name", "arch", "sm", "l2", "hbm", "clocks", "peak", "launch_overhead_us", "pipeline", "measured",
                             "kernel_rates", "corrected_by"});
  HardwareSpec hw;
  hw.name = top.string("name");
  hw.arch = top.string("arch");
  hw.sm = read_sm(top.map("sm", {"count", "sram_per_sm_bytes", "sram_per_block_bytes", "registers_per_sm",
                                        "max_registers_per_thread", "max_threads_per_sm", "max_threads_per_block",
                                        "max_blocks_per_sm", "sram_bytes_per_clock", "sfu_ops_per_clock"}));
  hw.l2 = read_l2(top.map("l2", {"size_bytes", "line_bytes", "sector_bytes", "ways", "bytes_per_clock", "partitions"}));
  hw.hbm = read_hbm(top.map("hbm", {"bandwidth_gb_per_s"}));
  hw.clock = read_clocks(top.map("clocks", {"sm_mhz"}));
  hw.peak = read_peak(
      top.map("peak", {"tensor_fp16_tflops", "tensor_bf16_tflops", "tensor_fp8_tflops", "fp32_tflops"}));
  hw.launch_overhead_us = top.positive_number("launch_overhead_us");
  hw.pipeline = read_pipeline(top.map("pipeline", pipeline_keys()));
  if (std::optional<YamlMap> m = top.optional_map("measured", measured_keys())) {
    hw.measured = read_measured(*m);
  }
  if (peers != nullptr) *peers = top.name_list("corrected_by");
  for (YamlMap r : top.map_list("kernel_rates", {"family", "row_lengths", "gb_per_s", "source"})) {
    hw.kernel_rates.push_back(read_kernel_rate(r, hw.kernel_rates));
  }
  if (!hw.measured.date.empty() && !is_iso_date(hw.measured.date)) {
    throw ConfigError(path + ": measured.date: expected a date YYYY-MM-DD, got '" + hw.measured.date + "'");
  }
  if (hw.l2.partitions > 2) throw ConfigError(path + ": l2.partitions must be 1 or 2");
  if (hw.l2.ways > kMaxWays) throw ConfigError(path + ": l2.ways must be at most 256");
  if (hw.sm.sram_per_block > hw.sm.sram_per_sm) {
    throw ConfigError(path + ": sm.sram_per_block_bytes exceeds sm.sram_per_sm_bytes");
  }
  if (!std::has_single_bit(hw.l2.line_bytes) || !std::has_single_bit(hw.l2.sector_bytes)) {
    throw ConfigError(path + ": l2.line_bytes and l2.sector_bytes must be powers of two");
  }
  if (hw.l2.line_bytes % hw.l2.sector_bytes != 0) {
    throw ConfigError(path + ": l2.line_bytes must be a multiple of l2.sector_bytes");
  }
  if (hw.l2.line_bytes / hw.l2.sector_bytes > 8) {
    throw ConfigError(path + ": l2.line_bytes must be at most 8 sectors (l2.sector_bytes)");
  }
  if (hw.l2.capacity.value % (std::uint64_t{hw.l2.line_bytes} * hw.l2.ways) != 0) {
    throw ConfigError(path + ": l2.size_bytes must be a whole number of sets (line_bytes × ways)");
  }
  check_limits(path, hw);
  return hw;
}

}  // namespace

}  // namespace iosim::config
