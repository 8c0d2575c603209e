// Reading a YAML file for YamlMap: a regular file, bounded before it is read (checked_file.h), then
// checked event by event for what yaml-cpp accepts but no config or scenario means (a second document,
// an alias or a list as a key, deep nesting), then loaded.
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <sstream>
#include <vector>

#include "src/config/checked_file.h"
#include "src/config/yaml_map.h"

namespace iosim::config {

namespace {

std::string line_of(const YAML::Mark& m) { return m.is_null() ? "" : std::to_string(m.line + 1); }

/// Walks the parser's events and throws ConfigError at the first construct the schemas never use.
class Screen : public YAML::EventHandler {
 public:
  explicit Screen(const std::string& path) : path_(path) {}

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (++documents_ > 1) fail(mark, "a second YAML document ('---'): a file holds one");
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t /*anchor*/) override { node(mark, "an empty key"); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t /*anchor*/) override { node(mark, "an alias (*name) as a key"); }
  void OnScalar(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t /*anchor*/,
                const std::string& /*value*/) override {
    node(mark, nullptr);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t /*anchor*/,
                       YAML::EmitterStyle::value /*style*/) override {
    node(mark, "a list as a key");
    open(mark, false);
  }
  void OnSequenceEnd() override { frames_.pop_back(); }
  void OnMapStart(const YAML::Mark& mark, const std::string& /*tag*/, YAML::anchor_t /*anchor*/,
                  YAML::EmitterStyle::value /*style*/) override {
    node(mark, "a mapping as a key");
    open(mark, true);
  }
  void OnMapEnd() override { frames_.pop_back(); }

 private:
  struct Frame {
    bool is_map;
    bool at_key;  ///< a mapping's next node is a key
  };

  /// A node at `mark`; `as_key`, when not null, names why it cannot be a mapping's key.
  void node(const YAML::Mark& mark, const char* as_key) {
    if (frames_.empty() || !frames_.back().is_map) return;
    Frame& f = frames_.back();
    if (f.at_key && as_key != nullptr) fail(mark, std::string(as_key) + ": keys are names");
    f.at_key = !f.at_key;
  }
  void open(const YAML::Mark& mark, bool is_map) {
    if (frames_.size() >= kMaxYamlDepth) {
      fail(mark, "nesting deeper than " + std::to_string(kMaxYamlDepth) + " levels of mappings and lists");
    }
    frames_.push_back({is_map, true});
  }
  [[noreturn]] void fail(const YAML::Mark& mark, const std::string& what) const {
    const std::string line = line_of(mark);
    throw ConfigError(path_ + (line.empty() ? "" : ":" + line) + ": " + what);
  }

  const std::string& path_;
  int documents_ = 0;
  std::vector<Frame> frames_;
};

}  // namespace

YAML::Node load_yaml_file(const std::string& path) {
  const std::string text = read_regular_file(path, kMaxYamlFileBytes, "a config or scenario");
  try {
    {
      std::istringstream in(text);
      YAML::Parser parser(in);
      Screen screen(path);
      while (parser.HandleNextDocument(screen)) {
      }
    }
    YAML::Node n = YAML::Load(text);
    if (!n.IsDefined() || n.IsNull()) throw ConfigError(path + ": the file is empty");
    return n;
  } catch (const YAML::DeepRecursion& e) {
    throw ConfigError(path + ":" + line_of(e.mark) + ": nesting deeper than " + std::to_string(kMaxYamlDepth) +
                      " levels of mappings and lists");
  } catch (const YAML::ParserException& e) {
    throw ConfigError(path + ":" + line_of(e.mark) + ": malformed YAML: " + printable(e.msg));
  }
}

}  // namespace iosim::config
