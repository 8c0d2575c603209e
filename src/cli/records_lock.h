// One writer per records file: `iosim sweep -o OUT` holds an exclusive flock(2) on OUT while it reads,
// resumes and appends to it, and `sweep merge` holds one on its output and shared ones on its inputs,
// so that two runs started at once on one file cannot both append every record (docs/sweeps.md).
#pragma once

#include <string>

#include <sys/types.h>

namespace iosim::cli {

class RecordsLock {
 public:
  enum class Mode { exclusive, shared };

  /// Opens `path` without blocking (a FIFO or device is refused, one line) and locks it. When another
  /// process holds a lock that conflicts: waits for it when `wait`, else throws InputError naming the
  /// file. A path where nothing is gives an empty lock, or with `create` a new empty file, locked.
  /// The lock is on the file the path names once it is held (a file renamed over it while this
  /// waited is opened again).
  static RecordsLock acquire(const std::string& path, Mode mode, bool create, bool wait);

  RecordsLock() = default;
  RecordsLock(RecordsLock&& o) noexcept;
  RecordsLock& operator=(RecordsLock&& o) noexcept;
  RecordsLock(const RecordsLock&) = delete;
  RecordsLock& operator=(const RecordsLock&) = delete;
  ~RecordsLock() { release(); }

  [[nodiscard]] bool held() const { return fd_ >= 0; }
  /// Whether `path` names the locked file (the same device and inode).
  [[nodiscard]] bool is(const std::string& path) const;
  /// Appends `bytes` at the end of the file (an exclusive lock), all of them or InputError.
  void append(const std::string& bytes) const;
  void release();

 private:
  int fd_ = -1;
  std::string path_;
  dev_t dev_ = 0;
  ino_t ino_ = 0;
};

}  // namespace iosim::cli
