# flash3 (FlashAttention-3 for sm_90a on CUTLASS's CuTe, cuda/kernels/flash3/): optional. Built when
# nvcc can target sm_90a (CUDA >= 12.0) and the CUTLASS headers are found: IOSIM_CUTLASS_INCLUDE if
# set, else .deps/cutlass/include (scripts/vendor-deps), else the include directory of the pinned PyPI
# package nvidia-cutlass (scripts/setup installs it). Targets:
#   iosim_flash3        the kernels (static library; the default build one forward instantiation, fp16
#                       d = 128 overlapped, and one backward, fp16 d = 128; IOSIM_CUDA_FULL_TILES all eight
#                       forward (fp16/bf16 × d 64/128 × overlapped/plain) and four backward (fp16/bf16 × d 64/128))
#   flash3_check        the GPU harness: correctness against the double-precision CPU reference, timing
#                       (forward and backward)
#   flash3_layout_test  a CPU test (ctest, tests/gpu/CMakeLists.txt): the register layouts the kernel's softmax and P·V rely on
# -DIOSIM_FLASH3_PTXAS_VERBOSE=ON adds ptxas -v (registers, spills) to the kernels' compile lines.
# The pin (nvidia-cutlass==4.2.0.0 → headers 4.2.0), one file for setup, vendor-deps and this check.
file(STRINGS ${CMAKE_CURRENT_LIST_DIR}/requirements.txt _flash3_pin REGEX "^nvidia-cutlass==")
string(REGEX REPLACE "^nvidia-cutlass==([0-9]+)\\.([0-9]+)\\.([0-9]+).*" "\\1.\\2.\\3" IOSIM_CUTLASS_VERSION "${_flash3_pin}")
option(IOSIM_FLASH3_PTXAS_VERBOSE "ptxas -v on the flash3 kernels" OFF)
set(IOSIM_FLASH3 OFF)
set(_flash3_why "")
if(CMAKE_CUDA_COMPILER_VERSION VERSION_LESS 12.0)
  set(_flash3_why "nvcc ${CMAKE_CUDA_COMPILER_VERSION} cannot target sm_90a (needs CUDA 12.0 or newer)")
else()
  if(NOT IOSIM_CUTLASS_INCLUDE)
    if(EXISTS ${PROJECT_SOURCE_DIR}/.deps/cutlass/include/cute/tensor.hpp)
      set(IOSIM_CUTLASS_INCLUDE ${PROJECT_SOURCE_DIR}/.deps/cutlass/include)
    else()
      find_program(IOSIM_PYTHON3 NAMES python3)
      if(IOSIM_PYTHON3)
        execute_process(
          COMMAND ${IOSIM_PYTHON3} -c
                  "import cutlass_library, os; print(os.path.join(os.path.dirname(cutlass_library.__file__), 'source', 'include'))"
          OUTPUT_VARIABLE _flash3_py OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _flash3_rc)
        if(_flash3_rc EQUAL 0 AND EXISTS ${_flash3_py}/cute/tensor.hpp)
          set(IOSIM_CUTLASS_INCLUDE ${_flash3_py})
        endif()
      endif()
    endif()
  endif()
  if(NOT IOSIM_CUTLASS_INCLUDE OR NOT EXISTS ${IOSIM_CUTLASS_INCLUDE}/cutlass/version.h)
    set(_flash3_why "no CUTLASS headers (scripts/setup installs nvidia-cutlass; or set IOSIM_CUTLASS_INCLUDE)")
  else()
    file(STRINGS ${IOSIM_CUTLASS_INCLUDE}/cutlass/version.h _flash3_v REGEX "#define CUTLASS_(MAJOR|MINOR|PATCH) ")
    string(REGEX REPLACE ".*MAJOR ([0-9]+).*MINOR ([0-9]+).*PATCH ([0-9]+).*" "\\1.\\2.\\3" _flash3_v "${_flash3_v}")
    if(NOT _flash3_v VERSION_EQUAL IOSIM_CUTLASS_VERSION)
      message(WARNING "iosim: CUTLASS ${_flash3_v} in ${IOSIM_CUTLASS_INCLUDE}, flash3 is tested with ${IOSIM_CUTLASS_VERSION}")
    endif()
    set(IOSIM_FLASH3 ON)
  endif()
endif()
if(NOT IOSIM_FLASH3)
  message(STATUS "iosim: flash3 kernels OFF: ${_flash3_why}")
  return()
endif()
message(STATUS "iosim: flash3 kernels ON (sm_90a, CUTLASS ${_flash3_v} from ${IOSIM_CUTLASS_INCLUDE})")

set(_flash3_dir ${CMAKE_CURRENT_LIST_DIR})
set(_flash3_inst fwd_d128_fp16 bwd_d128_fp16)
if(IOSIM_CUDA_FULL_TILES)
  list(APPEND _flash3_inst fwd_d128_bf16 fwd_d64_fp16 fwd_d64_bf16
       fwd_d128_fp16_plain fwd_d128_bf16_plain fwd_d64_fp16_plain fwd_d64_bf16_plain
       bwd_d128_bf16 bwd_d64_fp16 bwd_d64_bf16)
endif()
list(TRANSFORM _flash3_inst PREPEND ${_flash3_dir}/inst/)
list(TRANSFORM _flash3_inst APPEND .cu)

# The kernels: sm_90a only (wgmma, setmaxnreg), whatever CMAKE_CUDA_ARCHITECTURES says.
set(_flash3_cuda_flags ${IOSIM_CUDA_STD_FLAG} --expt-relaxed-constexpr -lineinfo -gencode=arch=compute_90a,code=sm_90a
    -Xptxas=-warn-spills)
if(IOSIM_FLASH3_PTXAS_VERBOSE)
  list(APPEND _flash3_cuda_flags -Xptxas=-v)
endif()
add_library(iosim_flash3 STATIC ${_flash3_dir}/registry.cpp ${_flash3_dir}/registry_bwd.cpp ${_flash3_inst})
target_include_directories(iosim_flash3 PUBLIC ${PROJECT_SOURCE_DIR})
target_include_directories(iosim_flash3 SYSTEM PRIVATE ${IOSIM_CUTLASS_INCLUDE})
target_link_libraries(iosim_flash3 PUBLIC CUDA::cudart_static)
target_compile_options(iosim_flash3 PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:${_flash3_cuda_flags}>)
if(IOSIM_CUDA_FULL_TILES)
  target_compile_definitions(iosim_flash3 PRIVATE IOSIM_CUDA_FULL_TILES=1)
endif()
set_target_properties(iosim_flash3 PROPERTIES CUDA_ARCHITECTURES OFF POSITION_INDEPENDENT_CODE ON)
iosim_target_defaults(iosim_flash3)

# The harness (host code; nvcc for the fp16/bf16 conversions) with the CPU reference.
add_executable(flash3_check ${_flash3_dir}/flash3_check.cu ${PROJECT_SOURCE_DIR}/cuda/reference/reference.cpp)
target_link_libraries(flash3_check PRIVATE iosim_flash3 CUDA::cudart_static Eigen3::Eigen)
target_compile_options(flash3_check PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:${IOSIM_CUDA_STD_FLAG}>)
set_target_properties(flash3_check PROPERTIES CUDA_ARCHITECTURES 90 RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
iosim_target_defaults(flash3_check)

# The layout test: CuTe's layouts computed on the host, no GPU.
add_executable(flash3_layout_test ${_flash3_dir}/layout_test.cu)
target_include_directories(flash3_layout_test PRIVATE ${PROJECT_SOURCE_DIR})
target_include_directories(flash3_layout_test SYSTEM PRIVATE ${IOSIM_CUTLASS_INCLUDE})
target_compile_options(flash3_layout_test PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:${IOSIM_CUDA_STD_FLAG} --expt-relaxed-constexpr>)
set_target_properties(flash3_layout_test PROPERTIES CUDA_ARCHITECTURES OFF RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
target_compile_options(flash3_layout_test PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-gencode=arch=compute_90a,code=sm_90a>)
