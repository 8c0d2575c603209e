# Sources of cuda/profiler, appended to IOSIM_GPU_SOURCES (paths relative to cuda/).
