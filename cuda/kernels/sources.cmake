# Sources of cuda/kernels, appended to IOSIM_GPU_SOURCES (paths relative to cuda/).
# One .cu per instantiation group (schedule, pass, d, type; flash2 forward also per K/V stage count,
# flash2 backward also per default/other warp count)
# so that they compile in parallel; each holds its group's default kernel, and the whole menu when
# IOSIM_CUDA_FULL_TILES is on.
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
)
# The head dimensions: gpu::kHeadDims in cuda/backend.h, the one place they are written.
file(STRINGS ${CMAKE_CURRENT_LIST_DIR}/../backend.h IOSIM_HEAD_DIMS REGEX "kHeadDims = {")
string(REGEX REPLACE ".*{([0-9, ]+)}.*" "\\1" IOSIM_HEAD_DIMS "${IOSIM_HEAD_DIMS}")
string(REPLACE ", " ";" IOSIM_HEAD_DIMS "${IOSIM_HEAD_DIMS}")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/../backend.h)
# flashdecode: split + combine kernels, both variants, every stage count, per (d, type)
foreach(d IN LISTS IOSIM_HEAD_DIMS)
  foreach(type IN ITEMS fp16 bf16)
    list(APPEND IOSIM_GPU_SOURCES kernels/inst/flashdecode_d${d}_${type}.cu)
  endforeach()
endforeach()
foreach(family IN ITEMS flash1_fwd flash1_bwd flash2_fwd flash2_bwd)
  foreach(d IN LISTS IOSIM_HEAD_DIMS)
    foreach(type IN ITEMS fp16 bf16)
      list(APPEND IOSIM_GPU_SOURCES kernels/inst/${family}_d${d}_${type}.cu)
      if(family STREQUAL "flash2_fwd")
        # flash2 forward's variants with 1 and 3 K/V stages (empty in the default build)
        list(APPEND IOSIM_GPU_SOURCES kernels/inst/${family}_d${d}_${type}_s1.cu kernels/inst/${family}_d${d}_${type}_s3.cu)
      elseif(family STREQUAL "flash2_bwd")
        # flash2 backward's tiles with their other warp count (empty in the default build)
        list(APPEND IOSIM_GPU_SOURCES kernels/inst/${family}_d${d}_${type}_altwarps.cu)
      endif()
    endforeach()
  endforeach()
endforeach()
