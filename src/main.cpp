#include <iostream>

#include "src/cli/app.h"

int main(int argc, char** argv) { return iosim::cli::run(argc, argv, std::cout, std::cerr); }
