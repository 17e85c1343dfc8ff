#include <cstdlib>

#include "absl/strings/numbers.h"
#include "commands.h"

namespace draforge::cli {

std::vector<FlagSpec> InputFlags() {
  return {
      {{"-f", "--filename"}, true, "file, directory (its .yaml/.yml/.json files) or - for standard input; repeatable"},
      {{"--max-input-size"}, true, "largest file accepted, in bytes (default 33554432)"},
  };
}

std::optional<Flags> ParseOrUsage(const Args& args, std::vector<FlagSpec> specs, const std::string& usage, Io io,
                                  int& exit_code) {
  specs.push_back({{"--help", "-h"}, false, "show this help"});
  auto flags = Flags::Parse(args, specs);
  if (!flags.ok()) {
    io.err << "error: " << flags.status().message() << "\n\nUsage: " << usage << "\n\nFlags:\n" << FlagHelp(specs);
    exit_code = kExitBadInput;
    return std::nullopt;
  }
  if (flags->Has("--help")) {
    io.out << "Usage: " << usage << "\n\nFlags:\n" << FlagHelp(specs);
    exit_code = kExitOk;
    return std::nullopt;
  }
  return *std::move(flags);
}

std::optional<std::vector<InputObject>> LoadInputs(const Flags& flags, Io io, bool strict, bool keep_failed) {
  const auto& files = flags.All("-f");
  if (files.empty()) {
    io.err << "error: no input: give one or more -f FILE (or -f - for standard input)\n";
    return std::nullopt;
  }
  InputOptions options;
  options.decode.strict = strict;
  if (auto max = flags.Get("--max-input-size")) {
    uint64_t n = 0;
    if (!absl::SimpleAtoi(*max, &n) || n == 0) {
      io.err << "error: --max-input-size: not a positive number of bytes: " << *max << "\n";
      return std::nullopt;
    }
    options.decode.max_bytes = n;
  }
  auto inputs = ReadInputs(files, options);
  if (!inputs.ok()) {
    io.err << "error: " << inputs.status().message() << "\n";
    return std::nullopt;
  }
  bool failed = false;
  for (const InputObject& in : *inputs) {
    for (const std::string& w : in.warnings) io.err << "warning: " << in.Where() << w << "\n";
    if (!in.object.ok()) {
      io.err << "error: " << in.Where() << in.object.status().message() << "\n";
      failed = true;
    }
  }
  if (failed && !keep_failed) return std::nullopt;
  return *std::move(inputs);
}

std::optional<std::vector<InputObject>> LoadIntoCluster(const Flags& flags, Io io, store::Cluster& cluster) {
  auto inputs = LoadInputs(flags, io, /*strict=*/false);
  if (!inputs) return std::nullopt;
  if (absl::Status s = ApplyAll(*inputs, cluster); !s.ok()) {
    io.err << "error: " << s.message() << "\n";
    return std::nullopt;
  }
  return inputs;
}

}  // namespace draforge::cli
