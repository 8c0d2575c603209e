#include <cstdio>
#include <iostream>

#include "src/cli/app.h"

int main(int argc, char** argv) {
  try {
    return iosim::cli::run(argc, argv, std::cout, std::cerr);
  } catch (...) {  // run() turns every std::exception into one line; this is for anything else
    std::fputs("iosim: error: an unexpected failure\n", stderr);
    return iosim::cli::kExitBadInput;
  }
}
