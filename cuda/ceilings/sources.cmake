# Sources of cuda/ceilings (iosim calibrate), appended to IOSIM_GPU_SOURCES (paths relative to cuda/).
list(APPEND IOSIM_GPU_SOURCES ceilings/ceilings.cu)
