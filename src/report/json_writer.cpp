#include "src/report/json_writer.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

namespace iosim::report {

std::string json_escape(std::string_view s) {
  std::string o;
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\t': o += "\\t"; break;
      case '\r': o += "\\r"; break;
      default:
        if (c < 0x20) {
          o += fmt::format("\\u{:04x}", c);
        } else {
          o += ch;
        }
    }
  }
  return o;
}

void JsonWriter::newline() {
  out_ += '\n';
  out_.append(2 * first_.size(), ' ');
}

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    const bool flat = one_line_.back();
    if (!first_.back()) out_ += flat ? ", " : ",";
    first_.back() = false;
    if (!flat) newline();
  }
}

JsonWriter& JsonWriter::open(char bracket, bool one_line) {
  before_value();
  out_ += bracket;
  one_line_.push_back(one_line || (!one_line_.empty() && one_line_.back()));
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::begin_object() { return open('{', false); }
JsonWriter& JsonWriter::begin_object_one_line() { return open('{', true); }

JsonWriter& JsonWriter::close(char bracket) {
  if (first_.empty()) throw std::logic_error("JsonWriter: nothing to close");
  const bool empty = first_.back();
  const bool flat = one_line_.back();
  first_.pop_back();
  one_line_.pop_back();
  if (!empty && !flat) newline();
  out_ += bracket;
  return *this;
}

JsonWriter& JsonWriter::end_object() { return close('}'); }

JsonWriter& JsonWriter::begin_array() { return open('[', false); }
JsonWriter& JsonWriter::begin_array_one_line() { return open('[', true); }

JsonWriter& JsonWriter::end_array() { return close(']'); }

JsonWriter& JsonWriter::key(std::string_view k) {
  before_value();
  out_ += '"' + json_escape(k) + "\": ";
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view s) {
  before_value();
  out_ += '"' + json_escape(s) + '"';
  return *this;
}

JsonWriter& JsonWriter::value(std::uint64_t v) {
  before_value();
  out_ += std::to_string(v);
  return *this;
}

JsonWriter& JsonWriter::value(double v) {
  before_value();
  out_ += std::isfinite(v) ? fmt::format("{}", v) : "null";
  return *this;
}

JsonWriter& JsonWriter::value(bool v) {
  before_value();
  out_ += v ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::null() {
  before_value();
  out_ += "null";
  return *this;
}

std::string JsonWriter::str() const {
  if (!first_.empty()) throw std::logic_error("JsonWriter: unclosed object or array");
  return out_ + '\n';
}

}  // namespace iosim::report
