# Sources of cuda/kernels, appended to IOSIM_GPU_SOURCES (paths relative to cuda/).
