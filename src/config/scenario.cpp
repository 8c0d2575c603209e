#include "src/config/scenario.h"

#include "sim/core/paging.h"
#include "src/config/yaml_map.h"

namespace iosim::config {

Scenario load_scenario(const std::string& path) {
  YamlMap top(load_yaml_file(path), path, "", {"description", "config", "problem", "pass", "schedules", "tiles", "splits"});
  Scenario s;
  s.file = path;
  s.description = top.optional_string("description").value_or("");
  s.config = top.optional_string("config");
  if (std::optional<YamlMap> p = top.optional_map("problem", {"batch", "heads", "kv_heads", "n", "n_kv", "d", "dtype", "causal", "window",
                                                                    "page_size", "page_order"})) {
    s.batch = p->optional_positive_integer("batch");
    s.heads = p->optional_positive_integer("heads");
    s.kv_heads = p->optional_positive_integer("kv_heads");
    s.causal = p->optional_bool("causal");
    s.window = p->optional_positive_integer("window");
    s.page_size = p->optional_positive_integer("page_size");
    s.page_order = p->optional_string("page_order");
    PageOrder order{};
    std::uint64_t seed = 0;
    if (s.page_order && !parse_page_order(*s.page_order, order, seed)) {
      throw ConfigError(path + ": problem.page_order: '" + printable(*s.page_order) +
                        "' is not contiguous, random or an integer seed");
    }
    if (s.page_order && !s.page_size) throw ConfigError(path + ": problem.page_order: needs page_size");
    s.n = p->optional_positive_integer("n");
    s.n_kv = p->optional_positive_integer("n_kv");
    s.d = p->optional_positive_integer("d");
    if (std::optional<std::string> t = p->optional_string("dtype")) {
      s.dtype = parse_dtype(*t);
      if (!s.dtype) throw ConfigError(path + ": problem.dtype: '" + printable(*t) + "' is not one of fp32, fp16, bf16, fp8");
    }
  }
  s.pass = top.optional_string("pass");
  if (s.pass && *s.pass != "fwd" && *s.pass != "bwd" && *s.pass != "fwdbwd") {
    throw ConfigError(path + ": pass: '" + printable(*s.pass) + "' is not one of fwd, bwd, fwdbwd");
  }
  s.schedules = top.optional_string_list("schedules");
  s.splits = top.optional_positive_integer("splits");
  if (std::optional<YamlMap> t = top.optional_map("tiles", {"br", "bc"})) {
    s.br = t->positive_integer_list("br");
    s.bc = t->positive_integer_list("bc");
  }
  return s;
}

}  // namespace iosim::config
