// A small streaming JSON writer: objects, arrays, strings escaped, integers exact, doubles round-trip.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace iosim::report {

class JsonWriter {
 public:
  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  /// Containers written on one line, with everything inside them (long lists of small records).
  JsonWriter& begin_object_one_line();
  JsonWriter& begin_array_one_line();
  /// The key of the next value inside an object.
  JsonWriter& key(std::string_view k);
  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(std::uint64_t v);
  JsonWriter& value(double v);
  JsonWriter& value(bool v);
  JsonWriter& null();

  template <class T>
  JsonWriter& field(std::string_view k, const T& v) {
    key(k);
    return value(v);
  }

  /// The document; throws if an object or array is still open.
  [[nodiscard]] std::string str() const;

 private:
  void before_value();
  JsonWriter& open(char bracket, bool one_line);
  JsonWriter& close(char bracket);
  void newline();

  std::string out_;
  std::vector<bool> first_;  ///< per open container: no element written yet
  std::vector<bool> one_line_;  ///< per open container: written on one line
  bool after_key_ = false;
};

[[nodiscard]] std::string json_escape(std::string_view s);

}  // namespace iosim::report
