#include "src/report/text_table.h"

#include <algorithm>
#include <stdexcept>

namespace iosim::report {

std::size_t display_width(const std::string& s) {
  std::size_t w = 0;
  for (char c : s) w += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return w;
}

TextTable::TextTable(std::vector<std::string> header, std::vector<Align> align)
    : header_(std::move(header)) {
  // No alignments given: the first column (a name) left, the rest (numbers) right.
  const bool defaults = align.empty();
  align_ = std::move(align);
  align_.resize(header_.size(), Align::right);
  if (defaults && !align_.empty()) align_[0] = Align::left;
}

void TextTable::add(std::vector<std::string> row) {
  if (row.size() != header_.size()) throw std::logic_error("TextTable: row width differs from header");
  rows_.push_back(std::move(row));
}

std::string TextTable::render(const std::string& indent) const {
  std::vector<std::size_t> width(header_.size());
  for (std::size_t c = 0; c < header_.size(); ++c) {
    width[c] = display_width(header_[c]);
    for (const auto& r : rows_) width[c] = std::max(width[c], display_width(r[c]));
  }
  std::string out;
  const auto line = [&](const std::vector<std::string>& cells) {
    std::string l = indent;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const std::string pad(width[c] - display_width(cells[c]), ' ');
      if (c != 0) l += "  ";
      l += align_[c] == Align::left ? cells[c] + pad : pad + cells[c];
    }
    while (!l.empty() && l.back() == ' ') l.pop_back();
    out += l + '\n';
  };
  line(header_);
  for (const auto& r : rows_) line(r);
  return out;
}

}  // namespace iosim::report
