# Sources of cuda/reference, appended to IOSIM_GPU_SOURCES (paths relative to cuda/).
list(APPEND IOSIM_GPU_SOURCES reference/reference.cpp)
