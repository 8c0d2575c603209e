#include "src/cli/validate_shape.h"

#include "sim/core/error.h"
#include "src/cli/problem_flags.h"

namespace iosim::cli {

namespace {

std::uint64_t positive(std::int64_t v, const char* flag) {
  if (v <= 0) throw InputError(std::string("validate: ") + flag + " must be a positive integer (got " + std::to_string(v) + ")");
  return static_cast<std::uint64_t>(v);
}

}  // namespace

void apply_shape_options(const ShapeOptions& o, std::vector<Problem>& shapes) {
  if (!o.any()) return;
  if (shapes.empty()) {
    throw InputError("validate: --causal, --n-kv, --window, --page-size and --page-order apply to --shape problems; give --shape");
  }
  const std::optional<std::uint64_t> n_kv = o.n_kv ? std::optional(positive(*o.n_kv, "--n-kv")) : std::nullopt;
  const std::uint64_t window = o.window ? positive(*o.window, "--window") : 0;
  const std::optional<std::uint64_t> page_size =
      o.page_size ? std::optional(positive(*o.page_size, "--page-size")) : std::nullopt;
  for (Problem& p : shapes) {
    p.causal = o.causal;
    if (n_kv) p.n_kv = *n_kv;
    p.window = window;
    check_window(p);
    set_pages(p, page_size, o.page_order);
    if (const std::string why = check(p); !why.empty()) throw InputError("validate: " + why);
  }
}

}  // namespace iosim::cli
