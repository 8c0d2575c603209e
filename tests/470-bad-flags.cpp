// Flag values that CLI11 alone would run with a default, drop, wrap or clamp: empty values, empty list
// members, integers of 2^32 and beyond, negative or 2^64 seeds. Each is one line naming the flag.
#include <doctest/doctest.h>

#include "support/bad_input.h"
#include "support/temp_file.h"

using iosim::test::BadInput;
using iosim::test::check_bad_inputs;
using iosim::test::cli;
using iosim::test::CliResult;

TEST_CASE("an empty value is an error, never the default") {
  const BadInput cases[] = {
      {{"-c", "teaching", "--n", "64", "--d", "16", "--pass", ""}, "--pass: expected a value, got an empty one"},
      {{"-c", "teaching", "--n", "64", "--d", "16", "--execute", ""}, "--execute: expected a value"},
      {{"-c", "teaching", "--n", "64", "--d", "16", "--dtype", ""}, "--dtype: expected a value"},
      {{"-c", "teaching", "--n", "64", "--d", "16", "--l2-policy", ""}, "--l2-policy: expected a value"},
      {{"-c", "teaching", "--n", "64", "--d", "16", "--launch-order", ""}, "--launch-order: expected a value"},
      {{"-c", "teaching", "--n", "64", "--d", "16", "--execute", "fp32", "--bug", ""}, "--bug: expected a value"},
      {{"-c", "teaching", "--n", "64", "--d", "16", "--execute", "fp32", "--input-scale", ""},
       "--input-scale: expected a value"},
      {{"-c", "teaching", "--n", "64", "--d", "16", "--splits", ""}, "--splits: expected a value"},
      {{"-c", "teaching", "--n", "64", "--d", "16", "--warps", ""}, "--warps: expected a value"},
      {{"-c", "teaching", "--n", "64", "--d", "16", "--stages", ""}, "--stages: expected a value"},
      {{"-c", "", "--n", "64", "--d", "16"}, "--config: expected a value"},
      {{"-c", "teaching", "--n", "", "--d", "16"}, "--n: expected a value, got an empty one"},
      {{"tiles", "-c", "teaching", "--n", "64", "--d", "16", "--l2-policy", ""}, "--l2-policy: expected a value"},
      {{"trace", "-c", "teaching", "--n", "64", "--d", "16", "--format", ""}, "--format:  not in {text,json,svg,html}"},
      {{"bounds", "-c", "teaching", "--pass", ""}, "--pass: expected a value"},
  };
  check_bad_inputs(cases);
}

TEST_CASE("a list with an empty member is an error, not a shorter or repeated list") {
  const BadInput cases[] = {
      {{"-c", "teaching", "--n", ",128", "--d", "16"}, "--n: an empty member in the list ',128'"},
      {{"-c", "teaching", "--n", "64,,128", "--d", "16"}, "--n: an empty member in the list '64,,128'"},
      {{"-c", "teaching", "--n", "64", "--d", "16,"}, "--d: an empty member in the list '16,'"},
      {{"-c", "teaching", "--n", "64", "--d", "16", "--schedule", "naive,"}, "--schedule: an empty member in the list 'naive,'"},
      {{"-c", "teaching", "--n", "64", "--d", "16", "--bc", "16,,32"}, "--bc: an empty member"},
      {{"-c", "teaching", "--n", "64", "--d", "16", "--br", ","}, "--br: an empty member"},
      {{"-c", "teaching", "--n", "64,x", "--d", "16"}, "--n: expected an integer below 2^63, got 'x'"},
      {{"trace", "-c", "teaching", "--n", "64", "--d", "16", "--schedule", "flash1,"}, "--schedule: an empty member"},
  };
  check_bad_inputs(cases);
}

TEST_CASE("lists and repeated flags still sweep") {
  const CliResult r = cli({"-c", "teaching", "--n", "64,128", "--n", "256", "--d", "16", "--schedule", "naive", "-f", "csv"});
  CAPTURE(r.err);
  REQUIRE(r.code == 0);
  CHECK(iosim::test::lines(r.out) == 4);  // a header and n = 64, 128, 256
}

TEST_CASE("integers of 2^32 and beyond: refused in range, never wrapped or saturated") {
  const BadInput cases[] = {
      {{"-c", "teaching", "--n", "64", "--d", "16", "--warps", "4294967300"}, "--warps must be at most 32 (got 4294967300)"},
      {{"-c", "teaching", "--n", "64", "--d", "16", "--stages", "4294967297"}, "--stages must be at most 8 (got 4294967297)"},
      {{"-c", "teaching", "--n", "64", "--d", "16", "--warps", "18446744073709551616"},
       "--warps: expected an integer below 2^63, got '18446744073709551616'"},
      {{"-c", "teaching", "--n", "64", "--d", "16", "--warps", "9223372036854775808"}, "--warps: expected an integer"},
      {{"-c", "teaching", "--n", "18446744073709551616", "--d", "16"}, "--n: expected an integer below 2^63"},
      {{"-c", "teaching", "--n", "64", "--d", "16", "--heads", "0x10"}, "--heads: expected an integer below 2^63, got '0x10'"},
      {{"-c", "teaching", "--n", "64", "--d", "16", "--batch", "1e3"}, "--batch: expected an integer"},
      {{"-c", "teaching", "--n", "64", "--d", "16", "--execute", "fp32", "--seed", "-1"},
       "--seed: expected a non-negative integer below 2^64, got '-1'"},
      {{"-c", "teaching", "--n", "64", "--d", "16", "--execute", "fp32", "--seed", "18446744073709551616"},
       "--seed: expected a non-negative integer below 2^64, got '18446744073709551616'"},
      {{"-c", "teaching", "--n", "64", "--d", "16", "--execute", "fp32", "--input-scale", "1e400"},
       "--input-scale: expected a finite number, got '1e400'"},
      {{"-c", "teaching", "--n", "64", "--d", "16", "--execute", "fp32", "--input-scale", "nan"},
       "--input-scale: expected a finite number"},
      {{"tiles", "-c", "teaching", "--n", "64", "--d", "16", "--top", "18446744073709551616"}, "--top: expected a non-negative"},
      {{"trace", "-c", "teaching", "--n", "64", "--d", "16", "-f", "svg", "--at", "99999999999999999999"}, "--at: expected an integer"},
      {{"validate", "-c", "h200", "--n", "-1"}, "--n: expected a non-negative integer below 2^64, got '-1'"},
  };
  check_bad_inputs(cases);
}

TEST_CASE("the largest seed runs, and is the seed used") {
  const CliResult r = cli({"-c", "teaching", "--n", "64", "--d", "16", "--schedule", "flash2", "--execute", "fp64", "--seed",
                           "18446744073709551615", "-f", "json"});
  CAPTURE(r.err);
  REQUIRE(r.code == 0);
  CHECK(iosim::test::parse_json(r.out)["runs"][0]["schedules"][0]["execution"]["seed"].as<std::uint64_t>() ==
        18446744073709551615u);
}

TEST_CASE("nonsense the run once accepted: a schedule named twice, a flag set to 2") {
  const BadInput cases[] = {
      {{"-c", "teaching", "--n", "64", "--d", "16", "--schedule", "naive,naive"}, "--schedule: 'naive' is named twice"},
      {{"-c", "teaching", "--n", "64", "--d", "16", "--schedule", "naive", "--schedule", "flash2,naive"},
       "'naive' is named twice"},
      {{"-c", "teaching", "--n", "64", "--d", "16", "--causal=2"}, "--causal: expected true or false"},
      {{"-c", "teaching", "--n", "64", "--d", "16", "--causal=-1"}, "--causal: expected true or false"},
      {{"-c", "teaching", "--n", "64", "--d", "16", "--predict=7"}, "--predict: expected true or false"},
      {{"tiles", "-c", "teaching", "--n", "64", "--d", "16", "--causal=2"}, "--causal: expected true or false"},
  };
  check_bad_inputs(cases);
  // The forms CLI11 documents still work, in any case.
  for (const char* v : {"--causal=true", "--causal=1", "--causal=YES", "--causal=on", "--causal=false", "--causal=0"}) {
    CAPTURE(v);
    const CliResult r = cli({"-c", "teaching", "--n", "64", "--d", "16", "--schedule", "naive", v, "-f", "csv"});
    CHECK(r.code == 0);
  }
}

TEST_CASE("tiles refuses a problem no candidate can run, as the run command does") {
  // All 200 candidates were rejected, and the table of rejections exited 0.
  for (const char* schedule : {"flash2", "flash1"}) {
    CAPTURE(schedule);
    const CliResult run = cli({"-c", "a100", "--n", "1024", "--d", "100000", "--schedule", schedule});
    const CliResult tiles = cli({"tiles", "-c", "a100", "--n", "1024", "--d", "100000", "--schedule", schedule});
    CAPTURE(tiles.err);
    CHECK(run.code == 2);
    CHECK(tiles.code == 2);
    CHECK(tiles.out.empty());
    CHECK(iosim::test::lines(tiles.err) == 1);
    CHECK(tiles.err == run.err);
  }
  const BadInput cases[] = {
      {{"tiles", "-c", "a100", "--n", "1024", "--d", "100000"}, "flash2: FlashAttention-2 has no tile for d = 100000"},
  };
  check_bad_inputs(cases);
}

TEST_CASE("other people's kernels refuse what they do not run: windows, pages, and Triton's n != n_kv") {
  const BadInput cases[] = {
      {{"-c", "h100", "--n", "1024", "--d", "64", "--causal", "--window", "64", "--kernels", "pytorch"},
       "--kernels pytorch: its kernels have no sliding window (--window)"},
      {{"-c", "h100", "--n", "1024", "--d", "64", "--causal", "--window", "64", "--kernels", "triton"},
       "--kernels triton: its kernels have no sliding window (--window)"},
      {{"-c", "h100", "--n", "1", "--n-kv", "4096", "--d", "64", "--page-size", "64", "--schedule", "flash2",
        "--kernels", "pytorch"},
       "--kernels pytorch: its kernels have no paged K/V (--page-size)"},
      {{"-c", "h100", "--n", "512", "--n-kv", "1024", "--d", "64", "--kernels", "triton"},
       "--kernels triton: the project's Triton kernels take n = n_kv"},
  };
  check_bad_inputs(cases);
}

TEST_CASE("a sliding window that cannot apply: one line naming --window, exit 2") {
  const BadInput cases[] = {
      {{"-c", "teaching", "--n", "64", "--d", "16", "--causal", "--window", "0"}, "--window must be a positive integer"},
      {{"-c", "teaching", "--n", "64", "--d", "16", "--causal", "--window", "-3"}, "--window must be a positive integer"},
      {{"-c", "teaching", "--n", "64", "--d", "16", "--window", "8"}, "--window needs --causal"},
      {{"-c", "teaching", "--n", "64", "--d", "16", "--causal", "--window", "65"}, "--window must be at most n_kv"},
      {{"-c", "teaching", "--n", "64", "--n-kv", "32", "--d", "16", "--causal", "--window", "33"},
       "--window must be at most n_kv"},
      {{"tiles", "-c", "teaching", "--n", "64", "--d", "16", "--window", "8"}, "--window needs --causal"},
      {{"trace", "-c", "teaching", "--n", "64", "--d", "16", "--window", "8"}, "--window needs --causal"},
  };
  check_bad_inputs(cases);
  // Its edges run: one key (the diagonal alone) and every key (the causal mask).
  for (const char* w : {"1", "64"}) {
    CAPTURE(w);
    const CliResult r = cli({"-c", "teaching", "--n", "64", "--d", "16", "--causal", "--window", w, "-f", "csv"});
    CAPTURE(r.err);
    CHECK(r.code == 0);
  }
  // A scenario's window is the flag's, checked the same way, and the JSON's problem states it.
  iosim::test::TempDir dir;
  const std::string sc = dir.write("w.yaml", "config: teaching\nproblem:\n  n: 64\n  d: 16\n  causal: true\n  window: 16\n");
  const CliResult r = cli({"-s", sc, "--schedule", "flash2", "-f", "json"});
  CAPTURE(r.err);
  REQUIRE(r.code == 0);
  CHECK(iosim::test::parse_json(r.out)["runs"][0]["problem"]["window"].as<std::uint64_t>() == 16);
  const std::string no_causal = dir.write("x.yaml", "config: teaching\nproblem:\n  n: 64\n  d: 16\n  window: 16\n");
  const BadInput scenario_cases[] = {{{"-s", no_causal}, "--window needs --causal"}};
  check_bad_inputs(scenario_cases);
}

TEST_CASE("paged K/V that cannot apply: one line naming --page-size or --page-order, exit 2") {
  const BadInput cases[] = {
      {{"-c", "teaching", "--n", "64", "--d", "16", "--schedule", "flash2", "--page-size", "48"},
       "--page-size must be a power of two (got 48)"},
      {{"-c", "teaching", "--n", "64", "--d", "16", "--schedule", "flash2", "--page-size", "0"},
       "--page-size must be a positive integer"},
      {{"-c", "teaching", "--n", "256", "--d", "16", "--schedule", "flash2", "--bc", "96", "--page-size", "64"},
       "--page-size 64 and flash2's K/V tile B_c = 96 must divide one another"},
      {{"-c", "teaching", "--n", "64", "--d", "16", "--schedule", "flash1", "--page-size", "16"},
       "--page-size: flash1 has no paged variant"},
      {{"-c", "teaching", "--n", "64", "--d", "16", "--page-size", "16"}, "--page-size: naive has no paged variant"},
      {{"-c", "teaching", "--n", "64", "--d", "16", "--schedule", "flash2", "--pass", "bwd", "--page-size", "16"},
       "--page-size: flash2's backward has no paged variant"},
      {{"-c", "teaching", "--n", "64", "--d", "16", "--schedule", "flash2", "--page-size", "16", "--page-order",
        "shuffled"},
       "--page-order must be contiguous, random or an integer seed (got 'shuffled')"},
      {{"-c", "teaching", "--n", "64", "--d", "16", "--schedule", "flash2", "--page-order", "random"},
       "--page-order needs --page-size"},
  };
  check_bad_inputs(cases);
  for (const char* order : {"contiguous", "random", "12"}) {
    CAPTURE(order);
    const CliResult r = cli({"-c", "teaching", "--n", "64", "--d", "16", "--schedule", "flash2,flashdecode",
                             "--page-size", "16", "--page-order", order, "-f", "csv"});
    CAPTURE(r.err);
    CHECK(r.code == 0);
  }
}

TEST_CASE("validate's --shape options that cannot apply: one line naming the flag, exit 2, before any GPU") {
  const BadInput cases[] = {
      {{"validate", "-c", "h100", "--window", "256"},
       "validate: --causal, --n-kv, --window, --page-size and --page-order apply to --shape problems; give --shape"},
      {{"validate", "-c", "h100", "--shape", "1,16,4096,64", "--window", "256"}, "--window needs --causal"},
      {{"validate", "-c", "h100", "--shape", "1,16,4096,64", "--causal", "--window", "0"},
       "validate: --window must be a positive integer (got 0)"},
      {{"validate", "-c", "h100", "--shape", "1,16,4096,64", "--causal", "--window", "8192"},
       "--window must be at most n_kv (got 8192 with n_kv 4096)"},
      {{"validate", "-c", "h100", "--shape", "1,16,1,64", "--n-kv", "0"}, "validate: --n-kv must be a positive integer (got 0)"},
      {{"validate", "-c", "h100", "--shape", "1,16,1,64", "--n-kv", "4096", "--page-size", "48"},
       "--page-size must be a power of two (got 48)"},
      {{"validate", "-c", "h100", "--shape", "1,16,1,64", "--n-kv", "4096", "--page-size", "-16"},
       "validate: --page-size must be a positive integer (got -16)"},
      {{"validate", "-c", "h100", "--shape", "1,16,1,64", "--page-order", "random"}, "--page-order needs --page-size"},
      {{"validate", "-c", "h100", "--shape", "1,16,1,64", "--page-size", "16", "--page-order", "shuffled"},
       "--page-order must be contiguous, random or an integer seed (got 'shuffled')"},
  };
  check_bad_inputs(cases);
}


TEST_CASE("the round skip's switch: a value that is not on or off, or the skip asked of the exact replay, exit 2") {
  const BadInput cases[] = {
      {{"-c", "teaching", "--n", "64", "--d", "16", "-p", "--l2-skip-rounds=maybe"}, "--l2-skip-rounds"},
      {{"-c", "teaching", "--n", "64", "--d", "16", "-p", "--l2", "exact", "--l2-skip-rounds"},
       "--l2-skip-rounds is a shortcut of --l2 fast"},
  };
  check_bad_inputs(cases);
  // Off, and the exact replay with it off or unsaid, run.
  for (const std::initializer_list<std::string> args :
       {std::initializer_list<std::string>{"-c", "h200", "--n", "1024", "--d", "64", "--schedule", "flash2", "-p", "--no-l2-skip-rounds"},
        {"-c", "h200", "--n", "1024", "--d", "64", "--schedule", "flash2", "-p", "--l2-skip-rounds=off", "--l2", "exact"},
        {"-c", "h200", "--n", "1024", "--d", "64", "--schedule", "flash2", "-p", "--l2", "exact"}}) {
    const CliResult r = cli(args);
    CAPTURE(r.err);
    CHECK(r.code == 0);
  }
}
