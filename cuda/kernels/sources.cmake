# Sources of cuda/kernels, appended to IOSIM_GPU_SOURCES (paths relative to cuda/, or absolute).
# The kernel instantiations come from the kernel menu, cuda/kernels/menu.csv: generate_kernels.py writes
# them into the build tree (kernels/inst/<arch>/*.cu, one per group of rows, so that the groups compile
# in parallel, and kernels/registry_menu.cpp, the registry's table). The lean rows by default (CI's
# build); every row with IOSIM_CUDA_FULL_TILES. The sm80 rows always; the sm90a rows where flash3.cmake
# set IOSIM_FLASH3 (their files: IOSIM_MENU_SM90A_SOURCES, compiled by flash3_targets.cmake with their
# own flags, not in IOSIM_GPU_SOURCES).
list(APPEND IOSIM_GPU_SOURCES
  kernels/buffers.cpp
  kernels/dispatch.cpp
  kernels/registry.cpp
  kernels/accuracy.cpp
  kernels/fill.cu
  kernels/flash_aux.cu
  kernels/naive.cu
  kernels/decode_plan.cpp
  kernels/decode_accuracy.cpp
  kernels/flash3/refusals.cpp
  kernels/flash3/kernels.cpp
)
set(iosim_menu ${CMAKE_CURRENT_LIST_DIR}/menu.csv)
set(iosim_menu_script ${CMAKE_CURRENT_LIST_DIR}/generate_kernels.py)
set(iosim_menu_out ${CMAKE_BINARY_DIR}/generated/cuda/kernels)
set(iosim_menu_args --arch sm80)
if(IOSIM_FLASH3)
  list(APPEND iosim_menu_args --arch sm90a)
endif()
if(IOSIM_CUDA_FULL_TILES)
  list(APPEND iosim_menu_args --full)
endif()
# Which files the table makes (asked now: a change of the table or the script configures again).
execute_process(COMMAND ${Python3_EXECUTABLE} ${iosim_menu_script} ${iosim_menu} --list ${iosim_menu_out} ${iosim_menu_args}
                OUTPUT_VARIABLE iosim_menu_files RESULT_VARIABLE iosim_menu_rc ERROR_VARIABLE iosim_menu_err)
if(NOT iosim_menu_rc EQUAL 0)
  message(FATAL_ERROR "${iosim_menu_err}")
endif()
string(REPLACE "\n" ";" iosim_menu_files "${iosim_menu_files}")
list(FILTER iosim_menu_files EXCLUDE REGEX "^$")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${iosim_menu} ${iosim_menu_script})
add_custom_command(
  OUTPUT ${iosim_menu_files}
  COMMAND ${Python3_EXECUTABLE} ${iosim_menu_script} ${iosim_menu} --cuda ${iosim_menu_out} ${iosim_menu_args}
  DEPENDS ${iosim_menu} ${iosim_menu_script}
  COMMENT "Generating the kernel menu's instantiation files (cuda/kernels/menu.csv)" VERBATIM)
set(IOSIM_MENU_SM90A_SOURCES ${iosim_menu_files})
list(FILTER IOSIM_MENU_SM90A_SOURCES INCLUDE REGEX "/inst/sm90a/")
list(FILTER iosim_menu_files EXCLUDE REGEX "/inst/sm90a/")
list(APPEND IOSIM_GPU_SOURCES ${iosim_menu_files})
