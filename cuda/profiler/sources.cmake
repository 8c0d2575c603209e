# Sources of cuda/profiler, appended to IOSIM_GPU_SOURCES (paths relative to cuda/).
# The Range Profiling and Profiler Host APIs live in libcupti (CUDA::cupti, linked by iosim_gpu);
# libcupti loads libnvperf_host.so and libnvperf_target.so itself at run time, so nothing more is
# linked here.
list(APPEND IOSIM_GPU_SOURCES profiler/cupti_util.cpp profiler/metric_set.cpp profiler/range_profiler.cpp
                              profiler/calibration.cu)
