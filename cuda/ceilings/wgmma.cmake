# The wgmma probe of iosim calibrate (cuda/ceilings/latency_wgmma.cu): Hopper's warpgroup MMA, which
# only arch-specific sm_90a code may issue. Built, for sm_90a alone whatever CMAKE_CUDA_ARCHITECTURES
# says, where nvcc can target sm_90a (CUDA 12.0 or newer; no CUTLASS needed), as the static library
# iosim_wgmma_probe linked into iosim_gpu, which then defines IOSIM_WGMMA_PROBE=1. Elsewhere calibrate
# builds and runs without it and reports the wgmma figures as not measured (pipeline.cpp).
if(CMAKE_CUDA_COMPILER_VERSION VERSION_LESS 12.0)
  message(STATUS "iosim: wgmma probe OFF: nvcc ${CMAKE_CUDA_COMPILER_VERSION} cannot target sm_90a (needs CUDA 12.0 or newer)")
  return()
endif()
message(STATUS "iosim: wgmma probe ON (sm_90a)")
add_library(iosim_wgmma_probe STATIC ${CMAKE_CURRENT_LIST_DIR}/latency_wgmma.cu)
target_include_directories(iosim_wgmma_probe PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(iosim_wgmma_probe PUBLIC CUDA::cudart_static)
target_compile_options(iosim_wgmma_probe PRIVATE
  $<$<COMPILE_LANGUAGE:CUDA>:${IOSIM_CUDA_STD_FLAG} -lineinfo -gencode=arch=compute_90a,code=sm_90a -Xptxas=-warn-spills>)
set_target_properties(iosim_wgmma_probe PROPERTIES CUDA_ARCHITECTURES OFF POSITION_INDEPENDENT_CODE ON)
iosim_target_defaults(iosim_wgmma_probe)
target_link_libraries(iosim_gpu PRIVATE iosim_wgmma_probe)
target_compile_definitions(iosim_gpu PRIVATE IOSIM_WGMMA_PROBE=1)
