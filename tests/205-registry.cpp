// The registry: every schedule is one entry, and what the entry says agrees with the schedule it builds.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "sim/exec/executor.h"
#include "sim/schedule/kernel_family.h"
#include "support/fixtures.h"

using namespace iosim;
using namespace iosim::test;

namespace {

template <class Pred>
std::size_t count_entries(Pred pred) {
  const auto all = schedule_catalog();
  return static_cast<std::size_t>(std::count_if(all.begin(), all.end(), pred));
}

bool is_family(std::string_view name) {
  const auto& all = kernel_families();
  return std::any_of(all.begin(), all.end(), [&](const KernelFamily& f) { return f.name == name; });
}

}  // namespace

TEST_CASE("registry: names are unique, every entry has a forward pass, lookups agree") {
  std::set<std::string_view> names;
  for (const ScheduleEntry& e : schedule_catalog()) {
    CAPTURE(e.name);
    CHECK(names.insert(e.name).second);
    CHECK(static_cast<bool>(e.fwd));
    CHECK(find_schedule(e.name) == &e);
    CHECK(&schedule_entry(e.name) == &e);
    CHECK(has_pass(e.name, Pass::bwd) == static_cast<bool>(e.bwd));
    CHECK(cuda_kernels(e.name) == (e.cuda ? &*e.cuda : nullptr));
  }
  CHECK(find_schedule("flash9") == nullptr);
  CHECK_THROWS_WITH_AS((void)schedule_entry("flash9"),
                       "unknown schedule 'flash9' (known: naive, flash1, flash2, flashdecode, flashdecode-heads, dtiled, "
                       "flash3, eager)",
                       InputError);
}

TEST_CASE("registry: the roles one schedule plays are played by exactly one") {
  CHECK(count_entries([](const ScheduleEntry& e) { return e.caps.tiles_default; }) == 1);
  CHECK(count_entries([](const ScheduleEntry& e) { return e.caps.baseline; }) == 1);
  CHECK(count_entries([](const ScheduleEntry& e) { return e.bounds.small_sram; }) == 1);
  CHECK(count_entries([](const ScheduleEntry& e) { return e.bounds.at_m == BoundsRole::AtM::quarter_d; }) == 1);
  CHECK(count_entries([](const ScheduleEntry& e) { return e.caps.traced_by_default && !e.by_default; }) == 0);
  CHECK(count_entries([](const ScheduleEntry& e) { return e.caps.tiles_default && !e.caps.tile_search; }) == 0);
  CHECK(count_entries([](const ScheduleEntry& e) { return e.caps.stages && !e.caps.tile_search; }) == 0);
  CHECK(count_entries([](const ScheduleEntry& e) {
          return e.bounds.at_m == BoundsRole::AtM::own_policy && e.bounds.policy == nullptr;
        }) == 0);
}

TEST_CASE("registry: each entry names the families of the kernels its schedule launches") {
  for (const ScheduleEntry& e : schedule_catalog()) {
    CAPTURE(e.name);
    for (const KernelFamilyOf& k : e.kernels) CHECK(is_family(k.family));
    for (Pass pass : {Pass::fwd, Pass::bwd}) {
      if (e.factory(pass) == nullptr) continue;
      Problem p = problem(1024, 64);
      if (!e.by_default) p.n = 1;  // the decoding and d-tiled schedules run as they are meant to
      const auto s = make_schedule(e.name, pass, context(p, hardware_for(e.name)));
      for (const Kernel* k : s->kernels()) {
        CAPTURE(k->name());
        const auto listed = std::find_if(e.kernels.begin(), e.kernels.end(),
                                         [&](const KernelFamilyOf& f) { return f.kernel == k->name(); });
        // A kernel the entry does not list is a library kernel (naive's cuBLAS GEMMs).
        CHECK(family_of(k->name()).name == (listed != e.kernels.end() ? listed->family : "library"));
        if (e.kernels.empty()) CHECK(family_of(k->name()).model == FamilyModel::roofline);
      }
    }
  }
}

TEST_CASE("registry: the families the entries describe are kernel_families()' own, each name once") {
  // family_of and the config's kernel_rates look a family up by name: with unique names the order in
  // which kernel_families() collects the folders' families does not matter.
  std::set<std::string_view> names;
  for (const KernelFamily& f : kernel_families()) {
    CAPTURE(f.name);
    CHECK(names.insert(f.name).second);
  }
  std::size_t described = 0;
  for (const ScheduleEntry& e : schedule_catalog()) {
    CAPTURE(e.name);
    if (e.families == nullptr) continue;
    for (const KernelFamily& f : e.families()) {
      CAPTURE(f.name);
      CHECK(is_family(f.name));
      ++described;
    }
  }
  // The rest are the generic families of kernel_family.cpp: element-wise, library and the four
  // measured-rate families of PyTorch's eager kernels.
  CHECK(kernel_families().size() == described + 6);
}

TEST_CASE("registry: a schedule with stages to search has kernels built with several; the others one") {
  for (const ScheduleEntry& e : schedule_catalog()) {
    if (!e.caps.tile_search) continue;
    CAPTURE(e.name);
    ScheduleContext ctx = context(problem(e.by_default ? 1024 : 1, 64), hardware_for(e.name));
    ctx.kernel.stages = 2;
    if (e.caps.stages) {
      CHECK(make_schedule(e.name, Pass::fwd, ctx)->kernel_config().stages == 2);
    } else {
      CHECK(make_schedule(e.name, Pass::fwd, ctx)->kernel_config().stages <= 1);
    }
  }
}

TEST_CASE("registry: an executor's online softmax is what --bug needs") {
  for (const ScheduleEntry& e : schedule_catalog()) {
    CAPTURE(e.name);
    if (e.executor == nullptr) continue;
    CHECK(static_cast<bool>(e.executor->forward_fp32));
    CHECK(static_cast<bool>(e.executor->forward_fp64));
    CHECK(static_cast<bool>(e.executor->backward_fp32) == static_cast<bool>(e.bwd));
    CHECK(static_cast<bool>(e.executor->backward_fp64) == static_cast<bool>(e.bwd));
  }
  CHECK(schedule_names([](const ScheduleEntry& e) { return e.executor != nullptr; }) == "naive, flash1, flash2 and eager");
  CHECK(schedule_names([](const ScheduleEntry& e) { return e.executor != nullptr && e.executor->online_softmax; },
                       ",", ",") == "flash1,flash2");
}

TEST_CASE("registry: the decoding schedules run forward only on CUDA kernels, with a grid of their own") {
  for (const ScheduleEntry& e : schedule_catalog()) {
    CAPTURE(e.name);
    if (e.validate.decode) {
      CHECK(!static_cast<bool>(e.bwd));
      CHECK(e.cuda.has_value());
    }
    if (e.validate.library_tiles) CHECK(e.cuda.has_value());
  }
  CHECK(schedule_names([](const ScheduleEntry& e) { return e.validate.decode; }) == "flashdecode and flashdecode-heads");
  CHECK(schedule_names([](const ScheduleEntry& e) { return e.validate.library_tiles; }) == "naive");
}

TEST_CASE("registry: the properties of the CUDA kernels agree with the rest of the entry") {
  const auto with = [](bool (*has)(const CudaKernels&)) {
    return schedule_names([&](const ScheduleEntry& e) { return e.cuda && has(*e.cuda); });
  };
  CHECK(with([](const CudaKernels& k) { return k.library; }) == "naive");
  CHECK(with([](const CudaKernels& k) { return k.decode; }) == "flashdecode and flashdecode-heads");
  CHECK(with([](const CudaKernels& k) { return k.packed_heads; }) == "flashdecode");
  CHECK(with([](const CudaKernels& k) { return k.hopper_tma; }) == "flash3");
  CHECK(with([](const CudaKernels& k) { return k.paged_fwd; }) == "flash2, flashdecode, flashdecode-heads and flash3");
  for (const ScheduleEntry& e : schedule_catalog()) {
    CAPTURE(e.name);
    if (!e.cuda) continue;
    CHECK(e.cuda->library == e.validate.library_tiles);  // cuBLAS picks its own tiles: one run per problem
    CHECK(e.cuda->decode == e.validate.decode);
    CHECK(!(e.cuda->packed_heads && !e.cuda->decode));
    CHECK(e.cuda->hopper_tma == e.caps.hopper_only);
    if (e.cuda->paged_fwd) CHECK(e.caps.paged_fwd);  // the model pages what the kernels page
  }
  CHECK(cuda_kernels("flash9") == nullptr);
}

TEST_CASE("registry: an entry's CUDA kernels write each pass it has, and check results they write") {
  for (const ScheduleEntry& e : schedule_catalog()) {
    CAPTURE(e.name);
    if (!e.cuda) continue;
    CHECK(cuda_kernels(e.name) == &*e.cuda);
    for (const Pass p : {Pass::fwd, Pass::bwd}) {
      const CudaPassTensors& t = p == Pass::fwd ? e.cuda->fwd : e.cuda->bwd;
      CHECK(t.writes.empty() == (e.factory(p) == nullptr));
      CHECK(t.results.empty() == t.writes.empty());
      for (const Tensor r : t.results) {
        CAPTURE(name(r));
        CHECK(std::find(t.writes.begin(), t.writes.end(), r) != t.writes.end());
      }
    }
  }
}
