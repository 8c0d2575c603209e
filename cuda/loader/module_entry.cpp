// The GPU module's exported entry point: the backend's functions (real or stub), as one table.
#include "cuda/loader/backend_table.h"

extern "C" __attribute__((visibility("default"))) const iosim::gpu::BackendTable* iosim_gpu_backend() {
  using namespace iosim::gpu;
  static const BackendTable table{
      .abi = kBackendAbi,
      .table_size = sizeof(BackendTable),
      .layout = backend_layout(),
      .available = &available,
      .device_info = &device_info,
      .compiled_tiles = &compiled_tiles,
      .compiled_variants = &compiled_variants,
      .kernel_shape = &kernel_shape,
      .unsupported = &unsupported,
      .unsupported_in_build = &unsupported_in_build,
      .check_accuracy = &check_accuracy,
      .measure = &measure,
      .measure_ceilings = &measure_ceilings,
      .measure_pipeline = &measure_pipeline,
  };
  return &table;
}
