#include "src/config/compiled_record.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string_view>

#include "sim/core/error.h"

namespace iosim::config {

namespace {

double number(const YAML::Node& n) { return n && n.IsScalar() && n.Scalar() != "null" ? n.as<double>() : 0; }

constexpr double kWarpLanes = 32;

/// Bytes per thread of one local-memory load and one store: ptxas's spill loads and stores (bytes, over
/// the kernel's code) over its LDL and STL instructions. The record counts opcodes without their width
/// (LDL, LDL.64, LDL.128), so a stretch's local traffic is its LDL and STL counts at these averages.
struct LocalWidths {
  double load = 0;
  double store = 0;
};

/// `opcodes` (a map of base opcode to count) LDL's and STL's counts.
double count_of(const YAML::Node& opcodes, const char* op) {
  return opcodes && opcodes.IsMap() ? number(opcodes[op]) : 0;
}

LocalWidths local_widths(const YAML::Node& r) {
  double ldl = 0, stl = 0;
  for (const YAML::Node& loop : r["loops"]) {
    ldl += count_of(loop["per_trip_opcodes"], "LDL");
    stl += count_of(loop["per_trip_opcodes"], "STL");
  }
  for (const char* part : {"prologue", "between", "epilogue"}) {
    const YAML::Node n = r[part];
    if (!n || !n.IsMap()) continue;
    ldl += count_of(n["opcodes"], "LDL");
    stl += count_of(n["opcodes"], "STL");
  }
  LocalWidths w;
  if (ldl > 0) w.load = number(r["spill_loads"]) / ldl;
  if (stl > 0) w.store = number(r["spills"]) / stl;
  return w;
}

/// `c`'s local-memory traffic from its opcodes' LDL and STL counts (`per` of them make one stretch).
void add_local(CompiledCode& c, const YAML::Node& opcodes, double per, const LocalWidths& w) {
  const double d = per > 0 ? per : 1;
  c.local_loads = count_of(opcodes, "LDL") / d;
  c.local_stores = count_of(opcodes, "STL") / d;
  c.local_bytes = kWarpLanes * (c.local_loads * w.load + c.local_stores * w.store);
}

/// A stretch of code: its counts by pipe, its tensor opcodes (with shapes) and its BAR count.
CompiledCode code_of(const YAML::Node& counts, const YAML::Node& tensor_opcodes, double block_barriers) {
  CompiledCode c;
  PipeCounts& p = c.pipes;
  p.tensor = number(counts["tensor"]);
  p.mufu = number(counts["mufu"]);
  p.alu = number(counts["alu"]);
  p.uniform = number(counts["uniform"]);
  p.shared = number(counts["shared"]);
  p.global = number(counts["global"]);
  p.shuffle = number(counts["shuffle"]);
  p.barrier = number(counts["barrier"]);
  p.other = number(counts["other"]);
  c.block_barriers = block_barriers;
  bool any_hgmma = false, any_hmma = false;
  if (tensor_opcodes && tensor_opcodes.IsMap()) {
    for (const auto& kv : tensor_opcodes) {
      const std::string op = kv.first.as<std::string>();
      c.mma_per_warp += mma_per_warp_of(op) * kv.second.as<double>();
      any_hgmma = any_hgmma || op.rfind("HGMMA", 0) == 0;
      any_hmma = any_hmma || op.rfind("HMMA", 0) == 0;
    }
  }
  c.warpgroup_mma = any_hgmma || !any_hmma;
  return c;
}

/// The products one tile of a kernel's loop runs, each B_r·B_c·d multiply-adds: the forward's S and
/// O += P V; the dQ kernel's S, dP and dQ; the dK/dV kernel's Sᵀ, dV, dPᵀ and dK. 0 for another kernel.
double products_per_tile(const std::string& kernel) {
  if (kernel == "attn_fwd") return 2;
  if (kernel == "attn_bwd_dq") return 3;
  if (kernel == "attn_bwd_dkdv") return 4;
  return 0;
}

/// `code` (the record's counts per tile, from the loop counter's step) rescaled where that step claims
/// more tiles a trip than its products can hold: a trip's tensor-core multiply-adds (the HGMMA shapes,
/// per warp, times the block's warps) over one tile's bound the tiles it covers, and a counter's step
/// (a pointer's, say) can exceed it. Only lowered: the products may exceed the tile's (a warpgroup's
/// m64 over B_r = 32 rows, or warpgroups computing the same rows), so more products than tiles prove
/// nothing. Unchanged where the record gives no shapes or the kernel's products are unknown.
CompiledCode per_tile(CompiledCode code, double iterations_per_trip, const CompiledKernel& k) {
  const double tile = products_per_tile(k.kernel) * static_cast<double>(k.block_m * k.block_n * k.head_dim);
  if (tile <= 0 || code.mma_per_warp <= 0 || iterations_per_trip <= 0) return code;
  const double trip = code.mma_per_warp * iterations_per_trip * (16.0 * 8 * 16) * k.warps;
  const double tiles = std::max(1.0, std::floor(trip / tile + 1e-6));
  if (tiles >= iterations_per_trip) return code;
  const double scale = iterations_per_trip / tiles;
  PipeCounts& p = code.pipes;
  for (double* x : {&p.tensor, &p.mufu, &p.alu, &p.uniform, &p.shared, &p.global, &p.shuffle, &p.barrier, &p.other}) {
    *x *= scale;
  }
  code.mma_per_warp *= scale;
  code.block_barriers *= scale;
  code.local_loads *= scale;
  code.local_stores *= scale;
  code.local_bytes *= scale;
  return code;
}

std::string label(const YAML::Node& r) {
  const YAML::Node c = r["config"];
  if (!c || !c.IsMap()) return "a compiled record";
  const auto field = [&](const char* k) { return c[k] ? c[k].as<std::string>() : std::string("?"); };
  return field("kernel") + " " + field("dtype") + " d=" + field("head_dim") + " " + field("block_m") + "x" +
         field("block_n") + " warps=" + field("num_warps") + " stages=" + field("num_stages") +
         (field("causal") == "true" ? " causal" : "") + " sm_" + field("arch");
}

CompiledKernel from_node(const YAML::Node& r) {
  const std::string name = label(r);
  try {
    CompiledKernel k;
    k.config = name;
    const YAML::Node c = r["config"];
    if (!c || !c.IsMap()) throw InputError("no config");
    k.kernel = c["kernel"] ? c["kernel"].as<std::string>() : std::string("attn_fwd");
    k.block_m = c["block_m"].as<std::uint64_t>();
    k.block_n = c["block_n"].as<std::uint64_t>();
    k.head_dim = c["head_dim"].as<std::uint64_t>();
    k.causal = c["causal"].as<bool>();
    k.warps = c["num_warps"].as<std::uint32_t>();
    k.stages = c["num_stages"].as<std::uint32_t>();
    std::string target = r["target"] ? r["target"].as<std::string>() : std::string("cuda:?");
    if (target.rfind("cuda:", 0) == 0) target = "sm_" + target.substr(5);
    k.source = "Triton " + (r["triton_version"] ? r["triton_version"].as<std::string>() : std::string("?")) + ", " + target;
    const YAML::Node err = r["error"];
    if (err && err.IsScalar() && err.Scalar() != "null" && !err.Scalar().empty()) {
      k.error = err.as<std::string>();
      return k;
    }
    k.registers = r["registers"].as<std::uint32_t>();
    k.spill_bytes = r["spills"] ? static_cast<std::uint64_t>(number(r["spills"])) : 0;
    k.shared_bytes = r["shared_bytes"].as<std::uint64_t>();
    const LocalWidths widths = local_widths(r);
    bool unmasked = false;
    for (const YAML::Node& loop : r["loops"]) {
      const std::string role = loop["role"].as<std::string>();
      if (role != "unmasked" && role != "masked") continue;
      const double per_trip = loop["iterations_per_trip"] ? number(loop["iterations_per_trip"]) : 1;
      CompiledCode read = code_of(loop["per_iteration"], loop["tensor_opcodes_per_iteration"],
                                  number(loop["block_barriers_per_iteration"]));
      add_local(read, loop["per_trip_opcodes"], per_trip, widths);
      const CompiledCode code = per_tile(read, per_trip, k);
      if (role == "unmasked") {
        k.unmasked = code;
        unmasked = true;
      } else {
        k.masked = code;
        k.has_masked = true;
      }
    }
    // The backward's preprocess has no tile loop: its one step is its prologue and epilogue.
    if (!unmasked && k.kernel != "attn_bwd_preprocess") throw InputError("no unmasked tile loop among its loops");
    const auto outside = [&](const char* part) {
      const YAML::Node n = r[part];
      if (!n || !n.IsMap()) throw InputError(std::string("no ") + part);
      CompiledCode code = code_of(n["counts"], n["tensor_opcodes"], n["opcodes"] ? number(n["opcodes"]["BAR"]) : 0);
      add_local(code, n["opcodes"], 1, widths);
      return code;
    };
    k.prologue = outside("prologue");
    k.epilogue = outside("epilogue");
    return k;
  } catch (const YAML::Exception& e) {
    throw InputError("--kernels triton: the record of " + name + " cannot be read: " + e.msg);
  } catch (const InputError& e) {
    throw InputError("--kernels triton: the record of " + name + " cannot be read: " + e.what());
  }
}

YAML::Node load(const std::string& json) {
  try {
    return YAML::Load(json);
  } catch (const YAML::Exception& e) {
    throw InputError("--kernels triton: the compiled records are not JSON: " + e.msg);
  }
}

}  // namespace

double mma_per_warp_of(const std::string& opcode) {
  unsigned m = 0, n = 0, k = 0;
  if (opcode.rfind("HGMMA.", 0) == 0 && std::sscanf(opcode.c_str(), "HGMMA.%ux%ux%u", &m, &n, &k) == 3) {
    // One warp's share of m64nNk16: 16 rows × N × k, in m16n8k16s.
    return (16.0 * n * k) / (16.0 * 8 * 16) * (m / 64.0);
  }
  if (opcode.rfind("HMMA.16816", 0) == 0) return 1;
  if (opcode.rfind("HMMA.1688", 0) == 0) return 0.5;
  return 0;
}

CompiledKernel parse_compiled_record(const std::string& json) { return from_node(load(json)); }

std::vector<CompiledKernel> parse_compiled_records(const std::string& json) {
  const YAML::Node list = load(json);
  if (!list.IsSequence()) throw InputError("--kernels triton: the compiled records are not a JSON list");
  std::vector<CompiledKernel> out;
  for (const YAML::Node& r : list) out.push_back(from_node(r));
  return out;
}

}  // namespace iosim::config
