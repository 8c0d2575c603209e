// Which CUDA kernels run a sliding window and paged K/V (cuda/window_paging.h): the window in every
// kernel (naive, flash1, flash2, flash3, flashdecode(-heads)), pages in flash2's and flash3's forward and
// flashdecode(-heads), with a page size that is a power of two fitting the K/V tile (flash3: at least its
// 16-row TMA box); the rest refused in one line naming the flag. Needs no GPU.
#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <string_view>

#include "cuda/window_paging.h"

using iosim::gpu::Direction;
using iosim::gpu::KernelSpec;
using iosim::gpu::window_paging_unsupported;

namespace {

KernelSpec spec(std::string_view a, Direction pass, int bc) {
  KernelSpec s;
  s.schedule = a;
  s.pass = pass;
  s.n = s.n_kv = 4096;
  s.d = 64;
  s.bc = bc;
  return s;
}

bool says(const std::string& why, const std::string& piece) { return why.find(piece) != std::string::npos; }

}  // namespace

TEST_CASE("a sliding window: every kernel runs it, under the causal mask, at most n_kv keys") {
  for (const std::string_view a : {"flash1", "flash2"}) {
    for (const Direction pass : {Direction::fwd, Direction::bwd}) {
      KernelSpec o = spec(a, pass, 64);
      o.causal = true;
      o.window = 256;
      CHECK(window_paging_unsupported(o).empty());
    }
  }
  for (const std::string_view a : {"flashdecode", "flashdecode-heads"}) {
    KernelSpec s = spec(a, Direction::fwd, 256);
    s.n = 1;
    s.causal = true;
    s.page_size = 64;  // with pages too
    for (const int w : {1, 1000, 4096}) {
      s.window = w;
      CAPTURE(w);
      CHECK(window_paging_unsupported(s).empty());
    }
    s.window = 4097;
    CHECK(says(window_paging_unsupported(s), "--window must be at most n_kv"));
    s.window = 64;
    s.causal = false;
    CHECK(says(window_paging_unsupported(s), "--window needs the causal mask"));
  }
  for (const Direction pass : {Direction::fwd, Direction::bwd}) {
    KernelSpec f3 = spec("flash3", pass, 128);
    f3.causal = true;
    f3.window = 1000;
    CHECK(window_paging_unsupported(f3).empty());
  }
  KernelSpec s = spec("flash2", Direction::fwd, 64);
  s.causal = true;
  s.window = 256;
  CHECK(window_paging_unsupported(s).empty());
  s.window = 4096;  // every key: the causal mask alone
  CHECK(window_paging_unsupported(s).empty());
  s.window = 4097;
  CHECK(says(window_paging_unsupported(s), "--window must be at most n_kv (got 4097 with n_kv 4096)"));
  s.window = 256;
  s.causal = false;
  CHECK(says(window_paging_unsupported(s), "--window needs the causal mask"));
  s.causal = true;
  s.window = -1;
  CHECK(says(window_paging_unsupported(s), "--window must be positive"));
  for (const auto& [a, pass] : {std::pair{"naive", Direction::fwd}, std::pair{"naive", Direction::bwd}}) {
    KernelSpec o = spec(a, pass, 64);  // naive's softmax masks the window (S is computed whole)
    o.causal = true;
    o.window = 256;
    CHECK(window_paging_unsupported(o).empty());
  }
}

TEST_CASE("paged K/V: flash2's and flash3's forward and flashdecode run it, a power-of-two page that fits B_c") {
  for (const std::string_view a : {"flash2", "flash3", "flashdecode", "flashdecode-heads"}) {
    for (const int page : {16, 64, 128, 256, 1024}) {
      KernelSpec s = spec(a, Direction::fwd, 128);
      s.page_size = page;
      CAPTURE(page);
      CHECK(window_paging_unsupported(s).empty());
    }
  }
  KernelSpec s = spec("flash2", Direction::fwd, 64);
  s.page_size = 48;
  CHECK(says(window_paging_unsupported(s), "--page-size must be a power of two (got 48)"));
  s.bc = 96;  // 64 neither divides B_c nor is divided by it
  s.page_size = 64;
  CHECK(says(window_paging_unsupported(s), "--page-size 64 and the K/V tile B_c = 96 must divide one another"));
  s.bc = 0;  // tile not known yet: only the page itself is checked
  CHECK(window_paging_unsupported(s).empty());
  for (const auto& [a, pass] : {std::pair{"naive", Direction::fwd}, std::pair{"flash1", Direction::fwd},
                                std::pair{"flash2", Direction::bwd}, std::pair{"flash3", Direction::bwd}}) {
    KernelSpec o = spec(a, pass, 64);
    o.page_size = 16;
    const std::string why = window_paging_unsupported(o);
    CHECK(says(why, "kernel has no paged K/V (flash2's and flash3's forward and flashdecode have)"));
    CHECK(why.find('\n') == std::string::npos);
  }
  KernelSpec b = spec("flash3", Direction::bwd, 128);
  b.page_size = 64;
  CHECK(says(window_paging_unsupported(b), "--page-size: the flash3 bwd kernel has no paged K/V"));
}

TEST_CASE("paged K/V in flash3's forward: pages of at least its 16-row TMA box, with a window too") {
  KernelSpec s = spec("flash3", Direction::fwd, 128);
  for (const int page : {16, 32, 128, 512}) {
    s.page_size = page;
    CAPTURE(page);
    CHECK(window_paging_unsupported(s).empty());
  }
  for (const int page : {1, 2, 4, 8}) {
    s.page_size = page;
    CAPTURE(page);
    const std::string why = window_paging_unsupported(s);
    CHECK(says(why, "--page-size must be at least 16 for the flash3 fwd kernel (its TMA copies K/V in boxes of 16 "
                    "rows; got " + std::to_string(page) + ")"));
    CHECK(why.find('\n') == std::string::npos);
  }
  s.page_size = 24;  // not a power of two: that line first
  CHECK(says(window_paging_unsupported(s), "--page-size must be a power of two (got 24)"));
  s.page_size = 8;  // flash2 and flashdecode copy by rows: small pages are theirs
  s.schedule = "flash2";
  s.bc = 64;
  CHECK(window_paging_unsupported(s).empty());
  s.schedule = "flash3";
  s.bc = 128;
  s.page_size = 64;
  s.causal = true;
  s.window = 1000;
  CHECK(window_paging_unsupported(s).empty());
}
