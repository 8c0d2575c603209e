// main() of the GPU test programs: without a CUDA GPU (CI), say so and exit 77, which ctest reports
// as skipped (SKIP_RETURN_CODE); with one, run the doctest cases.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <iostream>

#include "cuda/backend.h"

int main(int argc, char** argv) {
  std::string why;
  if (!iosim::gpu::available(&why)) {
    std::cout << "SKIPPED: " << why << '\n';
    return 77;
  }
  doctest::Context ctx(argc, argv);
  return ctx.run();
}
