// A plain text table: columns sized to their widest cell, numbers right-aligned.
#pragma once

#include <string>
#include <vector>

namespace iosim::report {

class TextTable {
 public:
  enum class Align { left, right };

  explicit TextTable(std::vector<std::string> header, std::vector<Align> align = {});
  void add(std::vector<std::string> row);
  [[nodiscard]] std::string render(const std::string& indent = "") const;

 private:
  std::vector<std::string> header_;
  std::vector<Align> align_;
  std::vector<std::vector<std::string>> rows_;
};

/// Display width of UTF-8 text (code points; the symbols used here are all one column wide).
[[nodiscard]] std::size_t display_width(const std::string& s);

}  // namespace iosim::report
