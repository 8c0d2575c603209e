# flash3's kernels and harness, where flash3.cmake found the build able to compile them (IOSIM_FLASH3):
#   iosim_flash3   the kernel menu's sm90a rows (cuda/kernels/menu.csv; generated files IOSIM_MENU_SM90A_SOURCES,
#                  kernels/sources.cmake), an object library compiled for sm_90a alone; its objects are
#                  iosim_gpu's, and kernel_registry() lists them. The default build: the lean rows (fp16
#                  d = 128, one forward and one backward); IOSIM_CUDA_FULL_TILES every flash3 row.
#   flash3_check   the GPU harness: correctness against the double-precision CPU reference, timing
#                  (forward and backward), on the registry's flash3 kernels (fwd_kernels(), bwd_kernels())
add_library(iosim_flash3 OBJECT ${IOSIM_MENU_SM90A_SOURCES})
target_include_directories(iosim_flash3 PRIVATE ${PROJECT_SOURCE_DIR} ${CMAKE_BINARY_DIR}/generated/include)
target_include_directories(iosim_flash3 SYSTEM PRIVATE ${IOSIM_CUTLASS_INCLUDE})
add_dependencies(iosim_flash3 iosim_kernel_menu)  # cuda/backend.h reads the kernel menu's header
target_compile_options(iosim_flash3 PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:${IOSIM_FLASH3_CUDA_FLAGS}>)
set_target_properties(iosim_flash3 PROPERTIES CUDA_ARCHITECTURES OFF POSITION_INDEPENDENT_CODE ON)
iosim_target_defaults(iosim_flash3)
target_sources(iosim_gpu PRIVATE $<TARGET_OBJECTS:iosim_flash3>)

# The harness (host code; nvcc for the fp16/bf16 conversions) with the CPU reference (iosim_gpu's).
add_executable(flash3_check ${CMAKE_CURRENT_LIST_DIR}/flash3_check.cu)
target_link_libraries(flash3_check PRIVATE iosim_gpu CUDA::cudart_static Eigen3::Eigen)
target_compile_options(flash3_check PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:${IOSIM_CUDA_STD_FLAG}>)
set_target_properties(flash3_check PROPERTIES CUDA_ARCHITECTURES 90 RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
iosim_target_defaults(flash3_check)
