# flash3 (FlashAttention-3 for sm_90a on CUTLASS's CuTe, cuda/kernels/flash3/): optional; whether this
# build compiles the kernel menu's sm90a rows (cuda/kernels/menu.csv). Built when the build targets
# sm_90 (CMAKE_CUDA_ARCHITECTURES), nvcc can target sm_90a (CUDA >= 12.0) and the CUTLASS headers are
# found: IOSIM_CUTLASS_INCLUDE if set, else .deps/cutlass/include (scripts/vendor-deps), else the
# include directory of the pinned PyPI package nvidia-cutlass (scripts/setup installs it). Sets
# IOSIM_FLASH3 and, where ON, the flags of sm90a code (IOSIM_FLASH3_CUDA_FLAGS) and the target
#   flash3_layout_test  a CPU test (ctest, tests/gpu/CMakeLists.txt): the register layouts the kernel's softmax and P·V rely on
# The kernels and the harness are flash3_targets.cmake's (they need the menu's generated files).
# -DIOSIM_FLASH3_PTXAS_VERBOSE=ON adds ptxas -v (registers, spills) to the kernels' compile lines.
# The pin (nvidia-cutlass==4.2.0.0 → headers 4.2.0), one file for setup, vendor-deps and this check.
file(STRINGS ${CMAKE_CURRENT_LIST_DIR}/requirements.txt _flash3_pin REGEX "^nvidia-cutlass==")
string(REGEX REPLACE "^nvidia-cutlass==([0-9]+)\\.([0-9]+)\\.([0-9]+).*" "\\1.\\2.\\3" IOSIM_CUTLASS_VERSION "${_flash3_pin}")
option(IOSIM_FLASH3_PTXAS_VERBOSE "ptxas -v on the flash3 kernels" OFF)
set(IOSIM_FLASH3 OFF)
set(_flash3_why "")
set(_flash3_sm90 OFF)
foreach(_a IN LISTS CMAKE_CUDA_ARCHITECTURES)
  if(_a MATCHES "^(90|all|all-major)")
    set(_flash3_sm90 ON)
  endif()
endforeach()
if(NOT _flash3_sm90)
  set(_flash3_why "the build does not target sm_90 (CMAKE_CUDA_ARCHITECTURES ${CMAKE_CUDA_ARCHITECTURES})")
elseif(CMAKE_CUDA_COMPILER_VERSION VERSION_LESS 12.0)
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
# sm_90a only (wgmma, setmaxnreg), whatever else CMAKE_CUDA_ARCHITECTURES says.
set(IOSIM_FLASH3_CUDA_FLAGS ${IOSIM_CUDA_STD_FLAG} --expt-relaxed-constexpr -lineinfo
    -gencode=arch=compute_90a,code=sm_90a -Xptxas=-warn-spills)
if(IOSIM_FLASH3_PTXAS_VERBOSE)
  list(APPEND IOSIM_FLASH3_CUDA_FLAGS -Xptxas=-v)
endif()

# The layout test: CuTe's layouts computed on the host, no GPU.
add_executable(flash3_layout_test ${_flash3_dir}/layout_test.cu)
target_include_directories(flash3_layout_test PRIVATE ${PROJECT_SOURCE_DIR})
target_include_directories(flash3_layout_test SYSTEM PRIVATE ${IOSIM_CUTLASS_INCLUDE})
target_compile_options(flash3_layout_test PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:${IOSIM_CUDA_STD_FLAG} --expt-relaxed-constexpr>)
set_target_properties(flash3_layout_test PROPERTIES CUDA_ARCHITECTURES OFF RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
target_compile_options(flash3_layout_test PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-gencode=arch=compute_90a,code=sm_90a>)
