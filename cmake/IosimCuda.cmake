# Decide whether to build the CUDA backend. CI has nvcc and no GPU: it builds the backend, and the GPU
# tests skip at run time. Without nvcc the CPU build works unchanged.
set(IOSIM_HAVE_CUDA OFF)
if(NOT IOSIM_CUDA STREQUAL "OFF")
  include(CheckLanguage)
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 80 90)
    endif()
    # CMake 3.25 does not know that nvcc 13 speaks C++20; tell it how to ask (cuda/ sets CUDA_STANDARD 20).
    if(NOT DEFINED CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
      set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
      set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    endif()
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    set(IOSIM_HAVE_CUDA ON)
  elseif(IOSIM_CUDA STREQUAL "ON")
    message(FATAL_ERROR "IOSIM_CUDA=ON but no CUDA compiler was found")
  endif()
endif()
message(STATUS "iosim: CUDA backend ${IOSIM_HAVE_CUDA}")

# iosim_add_gpu_module(SOURCES ... LIBS ...): the GPU module, libiosim_gpu.so, placed next to the iosim
# binary, where cuda/loader/loader.cpp looks for it. cuda/ builds it from the real backend, cuda/stub/
# from the stub; it exports one symbol (cuda/loader/module.map), and the program opens it only for the
# commands that need the GPU.
function(iosim_add_gpu_module)
  cmake_parse_arguments(M "" "" "SOURCES;LIBS" ${ARGN})
  add_library(iosim_gpu_module MODULE ${PROJECT_SOURCE_DIR}/cuda/loader/module_entry.cpp ${M_SOURCES})
  set_target_properties(iosim_gpu_module PROPERTIES OUTPUT_NAME iosim_gpu PREFIX lib
                        LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
  target_include_directories(iosim_gpu_module PRIVATE ${PROJECT_SOURCE_DIR} ${CMAKE_BINARY_DIR}/generated/include)
  add_dependencies(iosim_gpu_module iosim_kernel_menu)  # cuda/backend.h reads the kernel menu's header
  target_link_libraries(iosim_gpu_module PRIVATE ${M_LIBS})
  target_link_options(iosim_gpu_module PRIVATE "-Wl,--version-script=${PROJECT_SOURCE_DIR}/cuda/loader/module.map")
  set_property(TARGET iosim_gpu_module APPEND PROPERTY LINK_DEPENDS ${PROJECT_SOURCE_DIR}/cuda/loader/module.map)
  if(NOT IOSIM_SANITIZE)  # the sanitizers' runtime is the program's: their symbols stay undefined here
    target_link_options(iosim_gpu_module PRIVATE -Wl,--no-undefined)
  endif()
  iosim_target_defaults(iosim_gpu_module)
endfunction()
