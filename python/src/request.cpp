#include "python/src/request.h"

#include <CLI/CLI.hpp>

#include <charconv>
#include <functional>
#include <map>

#include "python/src/config_from_dict.h"
#include "sim/core/error.h"
#include "src/config/yaml_map.h"
#include "src/cli/limits.h"
#include "src/cli/value_problem.h"

namespace nb = nanobind;

namespace iosim::python {

namespace {

/// `h` as str() makes it, whole. A NUL inside is refused, as the program's argv can never hold one: as
/// a C string it ended the text early (config="a100\0x" ran a100).
std::string text_of(nb::handle h, const std::string& flag) {
  const nb::str str(h);
  Py_ssize_t size = 0;
  const char* data = PyUnicode_AsUTF8AndSize(str.ptr(), &size);
  if (data == nullptr) throw nb::python_error();
  std::string text(data, static_cast<std::size_t>(size));
  if (text.find('\0') != std::string::npos) {
    throw InputError(flag + ": a NUL character in '" + config::printable(text) + "'");
  }
  return text;
}

/// `v`'s text, refused as the program refuses it for an option of CLI11 type `type`. A Python str
/// or bytes is refused first: n="64" is a string where a number is expected (a number's text is what
/// the program would be given, and refused as it refuses it: n=1.5 as --n 1.5).
std::string checked(nb::handle v, const std::string& flag, const char* type) {
  if (nb::isinstance<nb::str>(v) || nb::isinstance<nb::bytes>(v)) {
    throw InputError(flag + ": expected " + (std::string(type) == "FLOAT" ? "a number" : "an integer") + ", got " +
                     config::printable(nb::repr(v).c_str()) + ", a string");
  }
  const std::string text = text_of(v, flag);
  if (const std::string why = cli::value_problem(text, type); !why.empty()) throw InputError(flag + ": " + why);
  return text;
}

template <class T>
T number(nb::handle v, const std::string& flag, const char* type) {
  const std::string text = checked(v, flag, type);
  T x{};
  std::from_chars(text.data(), text.data() + text.size(), x);  // checked() parsed it already
  return x;
}

std::int64_t integer(nb::handle v, const std::string& flag) { return number<std::int64_t>(v, flag, "INT"); }

std::vector<std::int64_t> integers(nb::handle v, const std::string& flag) {
  // A list too long for any run is refused before its items are read (n=[64]*10**6).
  (void)cli::list_points({{flag.c_str(), nb::len(v)}});
  std::vector<std::int64_t> out;
  for (nb::handle item : v) {
    // The list flags' own message (problem_flags.cpp: add_integer_list), which is value_problem's.
    out.push_back(integer(item, flag));
  }
  return out;
}

bool flag_bool(nb::handle v, const std::string& flag) {
  if (!nb::isinstance<nb::bool_>(v)) throw UsageError(flag + " takes True or False");
  return nb::cast<bool>(v);
}

using Setter = std::function<void(Request&, nb::handle, const std::string&)>;

const std::map<std::string, Setter>& setters() {
  using P = cli::ProblemFlags;
  const auto text = [](std::string P::*field) {
    return [field](Request& r, nb::handle v, const std::string& flag) { r.flags.*field = text_of(v, flag); };
  };
  const auto opt_int = [](std::optional<std::int64_t> P::*field) {
    return [field](Request& r, nb::handle v, const std::string& flag) { r.flags.*field = integer(v, flag); };
  };
  const auto int_list = [](std::vector<std::int64_t> P::*field) {
    return [field](Request& r, nb::handle v, const std::string& flag) { r.flags.*field = integers(v, flag); };
  };
  const auto boolean = [](bool P::*field) {
    return [field](Request& r, nb::handle v, const std::string& flag) { r.flags.*field = flag_bool(v, flag); };
  };
  static const std::map<std::string, Setter> kSetters{
      {"config",
       [](Request& r, nb::handle v, const std::string& flag) {
         if (nb::isinstance<nb::dict>(v)) {
           r.flags.config = kDictConfigName;
           r.hardware = config_from_dict(v, kDictConfigName);
         } else {
           r.flags.config = text_of(v, flag);
         }
       }},
      {"scenario", text(&P::scenario)},
      {"n", int_list(&P::n)},
      {"d", int_list(&P::d)},
      {"br", int_list(&P::br)},
      {"bc", int_list(&P::bc)},
      {"n-kv", opt_int(&P::n_kv)},
      {"batch", opt_int(&P::batch)},
      {"heads", opt_int(&P::heads)},
      {"kv-heads", opt_int(&P::kv_heads)},
      {"splits", opt_int(&P::splits)},
      {"warps", opt_int(&P::warps)},
      {"stages", opt_int(&P::stages)},
      {"kernels", text(&P::kernels)},
      {"dtype", text(&P::dtype)},
      {"pass", text(&P::pass)},
      {"causal", boolean(&P::causal)},
      {"window", opt_int(&P::window)},
      {"page-size", opt_int(&P::page_size)},
      {"page-order", text(&P::page_order)},
      {"predict", boolean(&P::predict)},
      {"launch-order", text(&P::launch_order)},
      {"l2-policy", text(&P::l2_policy)},
      {"l2", text(&P::l2_mode)},
      {"schedule",
       [](Request& r, nb::handle v, const std::string& flag) {
         for (nb::handle s : v) r.flags.schedules.push_back(text_of(s, flag));
       }},
      {"execute", text(&P::execute)},
      {"bug", text(&P::bug)},
      {"seed", [](Request& r, nb::handle v, const std::string& flag) {
         r.flags.seed = number<std::uint64_t>(v, flag, "UINT");
       }},
      {"input-scale", [](Request& r, nb::handle v, const std::string& flag) {
         r.flags.input_scale = number<double>(v, flag, "FLOAT");
       }},
      {"max-time", [](Request& r, nb::handle v, const std::string& flag) { r.max_time = text_of(v, flag); }},
      {"max-memory", [](Request& r, nb::handle v, const std::string& flag) { r.max_memory = text_of(v, flag); }},
      {"top",
       [](Request& r, nb::handle v, const std::string& flag) {
         // The program's checks of --top in its order (app.cpp): CLI11's PositiveNumber, then value_problem.
         std::string digits = text_of(v, flag);
         if (const std::string why = CLI::PositiveNumber(digits); !why.empty()) throw InputError(flag + ": " + why);
         r.top = number<std::size_t>(v, flag, "UINT");
       }},
  };
  return kSetters;
}

}  // namespace

Request request_from_dict(const nb::dict& flags) {
  Request r;
  for (auto [k, v] : flags) {
    const std::string key = text_of(k, "a flag name");
    const auto it = setters().find(key);
    if (it == setters().end()) throw UsageError("iosim: no flag --" + key);
    it->second(r, v, "--" + key);
  }
  return r;
}

}  // namespace iosim::python
