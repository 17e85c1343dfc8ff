// draforge cel: DRA CEL device selectors on the command line (lib/cel).
//
//   draforge cel eval [--device FILE] [--] EXPR   compile and evaluate; the result as a CEL literal
//   draforge cel eval --batch                     JSON lines in, JSON lines out (tests/oracle dra-cel's format)
//   draforge cel check [--any-type] [--] EXPR     compile only; the estimated cost
//   draforge cel explain [--] EXPR -f FILE...     the selector against every device of the ResourceSlices
//
// Exit status: 0 ok, 2 compile error or bad input/usage, 3 runtime error (eval; explain reports
// runtime errors per device and exits 0).
#include <cstdint>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "alloc/features.h"
#include "api/codec.h"
#include "api/standalone_device.h"
#include "api/yaml.h"
#include "cel/eval.h"
#include "cel/references.h"
#include "cel/selector.h"
#include "commands.h"
#include "output.h"
#include "rapidjson/document.h"
#include "store/cluster.h"
#include "common/json_string.h"

namespace draforge::cli {
namespace {

constexpr char kCelUsage[] = R"(Usage: draforge cel SUBCOMMAND [flags]

DRA device selectors (CEL), evaluated as kube-scheduler 1.37 does.

Subcommands:
  eval     draforge cel eval [--device FILE] [--feature-gates G] [--cost] [--] EXPR
             With --device (a YAML/JSON file with one device in the resource.k8s.io/v1 shape plus
             `driver`): EXPR is a selector (bool result, cost limit 1000000), the result is true or
             false. Without: any result type; `device` is unbound. Prints the result as a CEL literal.
           draforge cel eval --batch [--feature-gates G] < lines.jsonl
             Reads {"expression": ..., "device": {"driver", "attributes", "capacity",
             "allowMultipleAllocations"}} lines and writes {"result","cost","estimatedCost"},
             {"compileError"} or {"runtimeError"} lines (the format of tests/oracle dra-cel).
  check    draforge cel check [--any-type] [--feature-gates G] [--] EXPR
             Compiles EXPR as a selector (with --any-type: any result type) and prints the estimated
             worst-case cost; a selector over the limit of 1000000 is an error (as API validation).
  explain  draforge cel explain [--feature-gates G] [-o text|json] [--] EXPR -f FILE...
             Evaluates the selector against every device of the ResourceSlices given: true, false or
             the runtime error per device, and on how many devices each attribute and capacity the
             expression reads exists (runtime errors are part of the report: exit 0).

Exit status: 0 ok, 2 compile error or bad input, 3 runtime error (eval).
)";

std::vector<FlagSpec> GateFlag() {
  return {{{"--feature-gates"}, true, "A=true,B=false on top of the Kubernetes 1.37 defaults "
                                      "(DRAConsumableCapacity, DRAListTypeAttributes change the environment)"}};
}

// CompileOptions from --feature-gates, as the scheduler compiles selectors.
std::optional<cel::CompileOptions> OptionsFromFlags(const Flags& flags, Io io) {
  auto features = alloc::ParseFeatureGates(flags.GetOr("--feature-gates", ""));
  if (!features.ok()) {
    io.err << "error: --feature-gates: " << features.status().message() << "\n";
    return std::nullopt;
  }
  cel::CompileOptions options;
  options.check_estimated_cost = false;
  options.consumable_capacity = features->consumable_capacity;
  options.list_type_attributes = features->list_type_attributes;
  return options;
}

// The single EXPR argument.
std::optional<std::string> ExpressionArg(const Flags& flags, const std::string& usage, Io io) {
  const auto& pos = flags.positional();
  if (pos.size() != 1) {
    io.err << "error: " << (pos.empty() ? "missing EXPR" : "expected one EXPR argument (quote the expression)")
           << "\n\nUsage: " << usage << "\n";
    return std::nullopt;
  }
  return pos.front();
}

// A device given as JSON: {"driver", "attributes", "capacity", "allowMultipleAllocations", ...}
// (the v1 Device fields plus `driver`), decoded with the ResourceSlice decoder.
using LoadedDevice = api::StandaloneDevice;

absl::StatusOr<LoadedDevice> DecodeDevice(const rapidjson::Value& v, bool require_driver) {
  if (!v.IsObject()) return absl::InvalidArgumentError("the device must be an object");
  if (require_driver && !v.HasMember("driver")) return absl::InvalidArgumentError("missing \"driver\"");
  return api::DecodeStandaloneDevice(v);
}

cel::DeviceInput InputOf(const LoadedDevice& d, const cel::CompileOptions& options) {
  cel::DeviceInput in;
  in.driver = d.driver;
  in.attributes = &d.device.attributes;
  in.capacity = &d.device.capacity;
  in.allow_multiple_allocations = options.consumable_capacity && d.device.allow_multiple_allocations.value_or(false);
  return in;
}

absl::StatusOr<LoadedDevice> LoadDeviceFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return absl::NotFoundError(absl::StrCat(path, ": cannot open"));
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string text = ss.str();
  size_t first = text.find_first_not_of(" \t\r\n");
  rapidjson::Document doc;
  if (first != std::string::npos && text[first] == '{') {
    auto parsed = api::ParseJson(text);
    if (!parsed.ok()) return absl::InvalidArgumentError(absl::StrCat(path, ": ", parsed.status().message()));
    doc = *std::move(parsed);
  } else {
    auto docs = api::ParseYamlStream(text);
    if (!docs.ok()) return absl::InvalidArgumentError(absl::StrCat(path, ": ", docs.status().message()));
    if (docs->size() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": expected one device, found ", docs->size(), " documents"));
    }
    doc = std::move(docs->front().json);
  }
  auto device = DecodeDevice(doc, /*require_driver=*/true);
  if (!device.ok()) return absl::InvalidArgumentError(absl::StrCat(path, ": ", device.status().message()));
  return device;
}

// --- eval --batch -------------------------------------------------------------------------------

std::string JsonQuoted(std::string_view s) {
  rapidjson::Value v(rapidjson::StringRef(s.data(), static_cast<rapidjson::SizeType>(s.size())));
  return api::WriteJson(v, false);
}

int RunBatch(const cel::CompileOptions& options, std::istream& in, Io io) {
  std::unordered_map<std::string, absl::StatusOr<std::shared_ptr<const cel::DeviceSelector>>> cache;
  std::string line;
  for (int line_no = 1; std::getline(in, line); ++line_no) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto doc = api::ParseJson(line);
    if (!doc.ok() || !doc->IsObject()) {
      io.out.flush();
      io.err << "error: line " << line_no << ": " << (doc.ok() ? "not a JSON object" : doc.status().message()) << "\n";
      return kExitBadInput;
    }
    const rapidjson::Value* expr = nullptr;
    const rapidjson::Value* device = nullptr;
    for (auto it = doc->MemberBegin(); it != doc->MemberEnd(); ++it) {
      std::string_view key(it->name.GetString(), it->name.GetStringLength());
      if (key == "expression" && it->value.IsString()) {
        expr = &it->value;
      } else if (key == "device" && !it->value.IsNull()) {
        device = &it->value;
      } else if (key != "device") {
        io.out.flush();
        io.err << "error: line " << line_no << ": unknown or invalid field \"" << key << "\"\n";
        return kExitBadInput;
      }
    }
    if (expr == nullptr) {
      io.out.flush();
      io.err << "error: line " << line_no << ": missing \"expression\"\n";
      return kExitBadInput;
    }
    const std::string expression(expr->GetString(), expr->GetStringLength());
    std::string out;
    if (device == nullptr) {
      cel::ExpressionResult r = cel::EvaluateExpression(expression, options);
      switch (r.outcome) {
        case cel::ExpressionResult::Outcome::kCompileError: out = "{\"compileError\":" + JsonQuoted(r.error) + "}"; break;
        case cel::ExpressionResult::Outcome::kRuntimeError: out = "{\"runtimeError\":" + JsonQuoted(r.error) + "}"; break;
        case cel::ExpressionResult::Outcome::kValue:
          out = absl::StrCat("{\"result\":", JsonQuoted(r.value), ",\"cost\":", r.cost,
                             ",\"estimatedCost\":", r.estimated_cost, "}");
      }
    } else {
      auto d = DecodeDevice(*device, /*require_driver=*/false);
      if (!d.ok()) {
        io.out.flush();
        io.err << "error: line " << line_no << ": device: " << d.status().message() << "\n";
        return kExitBadInput;
      }
      auto it = cache.find(expression);
      if (it == cache.end()) it = cache.emplace(expression, cel::DeviceSelector::Compile(expression, options)).first;
      const auto& selector = it->second;
      if (!selector.ok()) {
        out = "{\"compileError\":" + JsonQuoted(std::string(selector.status().message())) + "}";
      } else {
        cel::SelectorResult r = (*selector)->Evaluate(InputOf(*d, options));
        if (!r.error.ok()) {
          out = "{\"runtimeError\":" + JsonQuoted(std::string(r.error.message())) + "}";
        } else {
          uint64_t estimate = static_cast<uint64_t>((*selector)->estimated_cost());
          if ((*selector)->estimated_cost() == INT64_MAX) {
            if (auto e = cel::EstimateCost(expression, options); e.ok()) estimate = *e;
          }
          out = absl::StrCat("{\"result\":\"", r.matches ? "true" : "false", "\",\"cost\":", r.actual_cost,
                             ",\"estimatedCost\":", estimate, "}");
        }
      }
    }
    io.out << out << '\n';
  }
  io.out.flush();
  return kExitOk;
}

// --- subcommands ----------------------------------------------------------------------------------

int RunEval(const Args& args, Io io) {
  auto specs = GateFlag();
  specs.push_back({{"--device"}, true, "a YAML or JSON file with one device (v1 Device fields plus `driver`)"});
  specs.push_back({{"--batch"}, false, "read JSON lines from standard input, write JSON lines (dra-cel's format)"});
  specs.push_back({{"--cost"}, false, "also print the runtime and estimated cost (on standard error)"});
  const std::string usage = "draforge cel eval [--device FILE] [--feature-gates G] [--cost] [--] EXPR | --batch";
  int code = kExitOk;
  auto flags = ParseOrUsage(args, specs, usage, io, code);
  if (!flags) return code;
  auto options = OptionsFromFlags(*flags, io);
  if (!options) return kExitBadInput;
  if (flags->Has("--batch")) {
    if (!flags->positional().empty() || flags->Has("--device")) {
      io.err << "error: --batch reads expressions and devices from standard input\n";
      return kExitBadInput;
    }
    return RunBatch(*options, std::cin, io);
  }
  auto expression = ExpressionArg(*flags, usage, io);
  if (!expression) return kExitBadInput;
  const bool show_cost = flags->Has("--cost");
  if (auto path = flags->Get("--device")) {
    auto device = LoadDeviceFile(*path);
    if (!device.ok()) {
      io.err << "error: --device " << device.status().message() << "\n";
      return kExitBadInput;
    }
    auto selector = cel::DeviceSelector::Compile(*expression, *options);
    if (!selector.ok()) {
      io.err << "error: " << selector.status().message() << "\n";
      return kExitBadInput;
    }
    cel::SelectorResult r = (*selector)->Evaluate(InputOf(*device, *options));
    if (!r.error.ok()) {
      io.err << "error: CEL runtime error: " << r.error.message() << "\n";
      return kExitError;
    }
    io.out << (r.matches ? "true" : "false") << "\n";
    if (show_cost) io.err << "cost " << r.actual_cost << ", estimated cost " << (*selector)->estimated_cost() << "\n";
    return kExitOk;
  }
  cel::ExpressionResult r = cel::EvaluateExpression(*expression, *options);
  switch (r.outcome) {
    case cel::ExpressionResult::Outcome::kCompileError:
      io.err << "error: " << r.error << "\n";
      return kExitBadInput;
    case cel::ExpressionResult::Outcome::kRuntimeError:
      io.err << "error: CEL runtime error: " << r.error << "\n";
      return kExitError;
    case cel::ExpressionResult::Outcome::kValue:
      break;
  }
  io.out << r.value << "\n";
  if (show_cost) io.err << "type " << r.type << ", cost " << r.cost << ", estimated cost " << r.estimated_cost << "\n";
  return kExitOk;
}

int RunCheck(const Args& args, Io io) {
  auto specs = GateFlag();
  specs.push_back({{"--any-type"}, false, "accept any result type (default: a selector, bool)"});
  const std::string usage = "draforge cel check [--any-type] [--feature-gates G] [--] EXPR";
  int code = kExitOk;
  auto flags = ParseOrUsage(args, specs, usage, io, code);
  if (!flags) return code;
  auto options = OptionsFromFlags(*flags, io);
  if (!options) return kExitBadInput;
  auto expression = ExpressionArg(*flags, usage, io);
  if (!expression) return kExitBadInput;
  uint64_t estimate = 0;
  if (flags->Has("--any-type")) {
    auto e = cel::EstimateCost(*expression, *options);
    if (!e.ok()) {
      io.err << "error: " << e.status().message() << "\n";
      return kExitBadInput;
    }
    estimate = *e;
  } else {
    if (expression->size() > cel::kSelectorMaxExpressionLength) {
      io.err << "error: the expression is " << expression->size() << " bytes long, more than the limit of "
             << cel::kSelectorMaxExpressionLength << "\n";
      return kExitBadInput;
    }
    auto selector = cel::DeviceSelector::Compile(*expression, *options);
    if (!selector.ok()) {
      io.err << "error: " << selector.status().message() << "\n";
      return kExitBadInput;
    }
    estimate = static_cast<uint64_t>((*selector)->estimated_cost());
    if ((*selector)->estimated_cost() == INT64_MAX) {
      if (auto e = cel::EstimateCost(*expression, *options); e.ok()) estimate = *e;
    }
  }
  io.out << "estimated cost " << estimate << "\n";
  if (!flags->Has("--any-type") && estimate > static_cast<uint64_t>(cel::kSelectorMaxCost)) {
    io.err << "error: the estimated cost " << estimate << " exceeds the limit of " << cel::kSelectorMaxCost
           << " (the API server rejects new selectors over it)\n";
    return kExitBadInput;
  }
  return kExitOk;
}

int RunCelExplain(const Args& args, Io io) {
  auto specs = InputFlags();
  for (auto& s : GateFlag()) specs.push_back(s);
  specs.push_back({{"-o", "--output"}, true, "text (default) or json"});
  const std::string usage = "draforge cel explain [--feature-gates G] [-o text|json] [--] EXPR -f FILE...";
  int code = kExitOk;
  auto flags = ParseOrUsage(args, specs, usage, io, code);
  if (!flags) return code;
  const auto format_or = OutputFormat(*flags, "text", {"text", "json"}, io);
  if (!format_or) return kExitBadInput;
  const std::string& format = *format_or;
  auto options = OptionsFromFlags(*flags, io);
  if (!options) return kExitBadInput;
  auto expression = ExpressionArg(*flags, usage, io);
  if (!expression) return kExitBadInput;
  auto selector = cel::DeviceSelector::Compile(*expression, *options);
  if (!selector.ok()) {
    io.err << "error: " << selector.status().message() << "\n";
    return kExitBadInput;
  }
  auto refs = cel::ReferencedNames(*expression, *options);
  if (!refs.ok()) {
    io.err << "error: " << refs.status().message() << "\n";
    return kExitBadInput;
  }
  auto inputs = LoadInputs(*flags, io, /*strict=*/false);
  if (!inputs) return kExitBadInput;
  store::Cluster cluster;
  if (absl::Status s = ApplyAll(*inputs, cluster); !s.ok()) {
    io.err << "error: " << s.message() << "\n";
    return kExitBadInput;
  }
  auto snapshot = cluster.snapshot();

  struct Row {
    std::string device;  // driver/pool/device
    int outcome;         // 1 true, 0 false, -1 error
    std::string error;
  };
  std::vector<Row> rows;
  std::vector<size_t> exists(refs->size(), 0);
  size_t matched = 0, errors = 0;
  for (const api::ResourceSlice* slice : snapshot->ResourceSlices()) {
    if (!slice->spec) continue;
    const std::string driver = slice->spec->driver.value_or("");
    const std::string pool = slice->spec->pool && slice->spec->pool->name ? *slice->spec->pool->name : "";
    for (const api::Device& d : slice->spec->devices) {
      cel::DeviceInput in;
      in.driver = driver;
      in.attributes = &d.attributes;
      in.capacity = &d.capacity;
      in.allow_multiple_allocations = options->consumable_capacity && d.allow_multiple_allocations.value_or(false);
      cel::SelectorResult r = (*selector)->Evaluate(in);
      Row row{absl::StrCat(driver, "/", pool, "/", d.name.value_or("")), 0, ""};
      if (!r.error.ok()) {
        row.outcome = -1;
        row.error = std::string(r.error.message());
        ++errors;
      } else if (r.matches) {
        row.outcome = 1;
        ++matched;
      }
      rows.push_back(std::move(row));
      for (size_t i = 0; i < refs->size(); ++i) {
        if ((*refs)[i].ExistsOn(driver, d.attributes, d.capacity)) ++exists[i];
      }
    }
  }
  auto kind_name = [](const cel::DeviceReference& r) {
    return r.kind == cel::DeviceReference::Kind::kAttribute ? "attribute" : "capacity";
  };
  const std::string summary = absl::StrCat(matched, " of ", rows.size(), " devices match", errors ? ", " : "",
                                           errors ? absl::StrCat(errors, " failed to evaluate") : "");
  if (format == "text") {
    for (const Row& row : rows) {
      io.out << row.device << ": "
             << (row.outcome == 1 ? "true" : row.outcome == 0 ? "false" : "error: " + row.error) << "\n";
    }
    io.out << summary << "\n";
    for (size_t i = 0; i < refs->size(); ++i) {
      io.out << kind_name((*refs)[i]) << " " << (*refs)[i].QualifiedName() << " exists on " << exists[i] << " of "
             << rows.size() << " devices\n";
    }
  } else {
    std::vector<rapidjson::Document> docs(1);
    rapidjson::Document& doc = docs.front();
    doc.SetObject();
    auto& a = doc.GetAllocator();
    auto str = [&](std::string_view s) { return JsonString(s, a); };
    doc.AddMember("expression", str(*expression), a);
    doc.AddMember("devices", rapidjson::Value(static_cast<uint64_t>(rows.size())), a);
    doc.AddMember("matching", rapidjson::Value(static_cast<uint64_t>(matched)), a);
    doc.AddMember("errors", rapidjson::Value(static_cast<uint64_t>(errors)), a);
    rapidjson::Value results(rapidjson::kArrayType);
    for (const Row& row : rows) {
      rapidjson::Value o(rapidjson::kObjectType);
      o.AddMember("device", str(row.device), a);
      if (row.outcome >= 0) o.AddMember("matches", rapidjson::Value(row.outcome == 1), a);
      else o.AddMember("error", str(row.error), a);
      results.PushBack(o, a);
    }
    doc.AddMember("results", results, a);
    rapidjson::Value references(rapidjson::kArrayType);
    for (size_t i = 0; i < refs->size(); ++i) {
      rapidjson::Value o(rapidjson::kObjectType);
      o.AddMember("kind", str(kind_name((*refs)[i])), a);
      o.AddMember("name", str((*refs)[i].QualifiedName()), a);
      o.AddMember("existsOn", rapidjson::Value(static_cast<uint64_t>(exists[i])), a);
      references.PushBack(o, a);
    }
    doc.AddMember("references", references, a);
    if (absl::Status s = WriteDocuments(docs, "json", io.out); !s.ok()) {
      io.err << "error: " << s.message() << "\n";
      return kExitBadInput;
    }
  }
  return kExitOk;
}

}  // namespace

int RunCel(const Args& args, Io io) {
  if (args.empty()) {
    io.err << kCelUsage;
    return kExitBadInput;
  }
  const std::string& sub = args.front();
  const Args rest(args.begin() + 1, args.end());
  if (sub == "--help" || sub == "-h" || sub == "help") {
    io.out << kCelUsage;
    return kExitOk;
  }
  if (sub == "eval") return RunEval(rest, io);
  if (sub == "check") return RunCheck(rest, io);
  if (sub == "explain") return RunCelExplain(rest, io);
  io.err << "error: unknown subcommand \"cel " << sub << "\"\n\n" << kCelUsage;
  return kExitBadInput;
}

}  // namespace draforge::cli
