# Sources of cuda/kernels, appended to IOSIM_GPU_SOURCES (paths relative to cuda/).
# One .cu per instantiation group (schedule, pass, d, type) so that they compile in parallel; each
# holds its group's default tile, and the whole menu when IOSIM_CUDA_FULL_TILES is on.
list(APPEND IOSIM_GPU_SOURCES
  kernels/buffers.cpp
  kernels/dispatch.cpp
  kernels/registry.cpp
  kernels/accuracy.cpp
  kernels/fill.cu
  kernels/flash_aux.cu
  kernels/naive.cu
)
foreach(family IN ITEMS flash1_fwd flash1_bwd flash2_fwd flash2_bwd)
  foreach(d IN ITEMS 64 128)
    foreach(type IN ITEMS fp16 bf16)
      list(APPEND IOSIM_GPU_SOURCES kernels/inst/${family}_d${d}_${type}.cu)
    endforeach()
  endforeach()
endforeach()
