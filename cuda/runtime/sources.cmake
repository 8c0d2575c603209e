# Sources of cuda/runtime, appended to IOSIM_GPU_SOURCES (paths relative to cuda/).
list(APPEND IOSIM_GPU_SOURCES runtime/device.cpp)
list(APPEND IOSIM_GPU_SOURCES runtime/l2_sweep.cu)
