# Sources of cuda/ceilings (iosim calibrate), appended to IOSIM_GPU_SOURCES (paths relative to cuda/):
# ceilings.cu the rates, latency_*.cu and clock_launch.cu the pipeline figures, pipeline.cpp runs those;
# latency_wgmma.cu (sm_90a only) is its own library, wgmma.cmake, included from cuda/CMakeLists.txt.
list(APPEND IOSIM_GPU_SOURCES ceilings/ceilings.cu)
list(APPEND IOSIM_GPU_SOURCES ceilings/latency_arith.cu)
list(APPEND IOSIM_GPU_SOURCES ceilings/latency_smem.cu)
list(APPEND IOSIM_GPU_SOURCES ceilings/latency_memory.cu)
list(APPEND IOSIM_GPU_SOURCES ceilings/clock_launch.cu)
list(APPEND IOSIM_GPU_SOURCES ceilings/pipeline.cpp)
