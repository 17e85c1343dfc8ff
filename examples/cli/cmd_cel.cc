// draforge cel: DRA CEL device selectors on the command line (draforge/cel.h).
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
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "commands.h"
#include "draforge/draforge.hpp"
#include "output.h"
#include "rapidjson/document.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

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

// CelOptions from --feature-gates, as the scheduler compiles selectors (gates checked as it checks them).
std::optional<CelOptions> OptionsFromFlags(const Flags& flags, Io io) {
  CelOptions options;
  options.feature_gates = flags.GetOr("--feature-gates", "");
  if (auto gates = FeatureGatesJson(options.feature_gates); !gates.ok()) {
    io.err << "error: --feature-gates: " << gates.error().message << "\n";
    return std::nullopt;
  }
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

std::string JsonText(const rapidjson::Value& v) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  v.Accept(w);
  return std::string(buf.GetString(), buf.GetSize());
}

// The device of --device FILE as JSON; the error names the file.
Result<std::string> LoadDeviceFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return Error{DRAFORGE_ENOTFOUND, path + ": cannot open", "", ""};
  std::stringstream ss;
  ss << f.rdbuf();
  auto device = CelParseDevice(ss.str());
  if (!device.ok()) return Error{device.error().code, path + ": " + device.error().message, "", ""};
  return device;
}

// The estimated cost a selector reports in the dra-cel format (cel-go's uint64).
std::string Cost(uint64_t n) { return std::to_string(n); }

// --- eval --batch -------------------------------------------------------------------------------

std::string JsonQuoted(std::string_view s) {
  rapidjson::Value v(rapidjson::StringRef(s.data(), static_cast<rapidjson::SizeType>(s.size())));
  return JsonText(v);
}

// One batch line's output: the outcome JSON of the C ABI in dra-cel's field names.
std::string BatchLine(const rapidjson::Document& outcome, uint64_t estimated_cost) {
  if (outcome.HasMember("compileError")) return "{\"compileError\":" + JsonText(outcome["compileError"]) + "}";
  if (outcome.HasMember("runtimeError")) return "{\"runtimeError\":" + JsonText(outcome["runtimeError"]) + "}";
  if (outcome.HasMember("value")) {
    return "{\"result\":" + JsonText(outcome["value"]) + ",\"cost\":" + JsonText(outcome["cost"]) +
           ",\"estimatedCost\":" + JsonText(outcome["estimatedCost"]) + "}";
  }
  return std::string("{\"result\":\"") + (outcome["matches"].GetBool() ? "true" : "false") +
         "\",\"cost\":" + JsonText(outcome["cost"]) + ",\"estimatedCost\":" + Cost(estimated_cost) + "}";
}

using SelectorCache = std::unordered_map<std::string, Result<CelSelector>>;

Error BadLine(std::string message) { return Error{DRAFORGE_EINVALID, std::move(message)}; }

// One batch line (a JSON object with "expression" and an optional "device") to its output line; an
// error is the line's input problem (the batch stops there).
Result<std::string> BatchOne(const std::string& line, const CelOptions& options, SelectorCache& cache) {
  rapidjson::Document doc;
  doc.Parse(line.c_str(), line.size());
  if (doc.HasParseError()) return BadLine("not valid JSON (at byte " + std::to_string(doc.GetErrorOffset()) + ")");
  if (!doc.IsObject()) return BadLine("not a JSON object");
  const rapidjson::Value* expr = nullptr;
  const rapidjson::Value* device = nullptr;
  for (auto it = doc.MemberBegin(); it != doc.MemberEnd(); ++it) {
    std::string_view key(it->name.GetString(), it->name.GetStringLength());
    if (key == "expression" && it->value.IsString()) {
      expr = &it->value;
    } else if (key == "device" && !it->value.IsNull()) {
      device = &it->value;
    } else if (key != "device") {
      return BadLine("unknown or invalid field \"" + std::string(key) + "\"");
    }
  }
  if (expr == nullptr) return BadLine("missing \"expression\"");
  const std::string expression(expr->GetString(), expr->GetStringLength());
  rapidjson::Document outcome;
  if (device == nullptr) {
    auto r = CelEvaluateJson(expression, options);
    if (!r.ok()) return BadLine(r.error().message);
    outcome.Parse(r->c_str(), r->size());
    return BatchLine(outcome, 0);
  }
  if (!device->IsObject()) return BadLine("device: the device must be an object");
  auto it = cache.find(expression);
  if (it == cache.end()) it = cache.emplace(expression, CelSelector::Compile(expression, options)).first;
  const Result<CelSelector>& selector = it->second;
  if (!selector.ok()) return "{\"compileError\":" + JsonQuoted(selector.error().message) + "}";
  auto r = selector->EvaluateJson(JsonText(*device));
  if (!r.ok()) return BadLine(r.error().message);
  outcome.Parse(r->c_str(), r->size());
  return BatchLine(outcome, selector->estimated_cost_uint64());
}

int RunBatch(const CelOptions& options, std::istream& in, Io io) {
  SelectorCache cache;
  std::string line;
  for (int line_no = 1; std::getline(in, line); ++line_no) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto out = BatchOne(line, options, cache);
    if (!out.ok()) {
      io.out.flush();
      io.err << "error: line " << line_no << ": " << out.error().message << "\n";
      return kExitBadInput;
    }
    io.out << *out << '\n';
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
      io.err << "error: --device " << device.error().message << "\n";
      return kExitBadInput;
    }
    auto selector = CelSelector::Compile(*expression, *options);
    if (!selector.ok()) {
      io.err << "error: " << selector.error().message << "\n";
      return kExitBadInput;
    }
    auto r = selector->EvaluateJson(*device);
    if (!r.ok()) {
      io.err << "error: --device " << *path << ": " << r.error().message << "\n";
      return kExitBadInput;
    }
    rapidjson::Document outcome;
    outcome.Parse(r->c_str(), r->size());
    if (outcome.HasMember("runtimeError")) {
      io.err << "error: CEL runtime error: " << outcome["runtimeError"].GetString() << "\n";
      return kExitError;
    }
    io.out << (outcome["matches"].GetBool() ? "true" : "false") << "\n";
    if (show_cost) {
      io.err << "cost " << outcome["cost"].GetInt64() << ", estimated cost " << selector->estimated_cost() << "\n";
    }
    return kExitOk;
  }
  auto r = CelEvaluateJson(*expression, *options);
  if (!r.ok()) {
    io.err << "error: " << r.error().message << "\n";
    return kExitBadInput;
  }
  rapidjson::Document outcome;
  outcome.Parse(r->c_str(), r->size());
  if (outcome.HasMember("compileError")) {
    io.err << "error: " << outcome["compileError"].GetString() << "\n";
    return kExitBadInput;
  }
  if (outcome.HasMember("runtimeError")) {
    io.err << "error: CEL runtime error: " << outcome["runtimeError"].GetString() << "\n";
    return kExitError;
  }
  io.out << outcome["value"].GetString() << "\n";
  if (show_cost) {
    io.err << "type " << outcome["type"].GetString() << ", cost " << outcome["cost"].GetInt64() << ", estimated cost "
           << outcome["estimatedCost"].GetUint64() << "\n";
  }
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
    auto e = CelEstimateCost(*expression, *options);
    if (!e.ok()) {
      io.err << "error: " << e.error().message << "\n";
      return kExitBadInput;
    }
    estimate = *e;
  } else {
    if (expression->size() > DRAFORGE_CEL_SELECTOR_MAX_EXPRESSION_LENGTH) {
      io.err << "error: the expression is " << expression->size() << " bytes long, more than the limit of "
             << DRAFORGE_CEL_SELECTOR_MAX_EXPRESSION_LENGTH << "\n";
      return kExitBadInput;
    }
    auto selector = CelSelector::Compile(*expression, *options);
    if (!selector.ok()) {
      io.err << "error: " << selector.error().message << "\n";
      return kExitBadInput;
    }
    estimate = selector->estimated_cost_uint64();
  }
  io.out << "estimated cost " << estimate << "\n";
  if (!flags->Has("--any-type") && estimate > static_cast<uint64_t>(DRAFORGE_CEL_SELECTOR_MAX_COST)) {
    io.err << "error: the estimated cost " << estimate << " exceeds the limit of " << DRAFORGE_CEL_SELECTOR_MAX_COST
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
  auto selector = CelSelector::Compile(*expression, *options);
  if (!selector.ok()) {
    io.err << "error: " << selector.error().message << "\n";
    return kExitBadInput;
  }
  auto refs_json = selector->ReferencesJson();
  if (!refs_json.ok()) {
    io.err << "error: " << refs_json.error().message << "\n";
    return kExitBadInput;
  }
  rapidjson::Document refs;
  refs.Parse(refs_json->c_str(), refs_json->size());
  auto loaded = LoadCluster(*flags, io);
  if (!loaded) return kExitBadInput;
  auto slices_json = loaded->snapshot.ObjectsJson("ResourceSlice");
  if (!slices_json.ok()) {
    io.err << "error: " << slices_json.error().message << "\n";
    return kExitError;
  }
  rapidjson::Document slices;
  slices.Parse(slices_json->c_str(), slices_json->size());

  struct Row {
    std::string device;  // driver/pool/device
    int outcome;         // 1 true, 0 false, -1 error
    std::string error;
  };
  std::vector<Row> rows;
  std::vector<size_t> exists(refs.Size(), 0);
  size_t matched = 0, errors = 0;
  for (const rapidjson::Value& slice : slices.GetArray()) {
    auto evaluated = selector->EvaluateSlice(JsonText(slice));
    if (!evaluated.ok()) {
      io.err << "error: " << evaluated.error().message << "\n";
      return kExitBadInput;
    }
    rapidjson::Document e;
    e.Parse(evaluated->c_str(), evaluated->size());
    const std::string prefix = std::string(e["driver"].GetString()) + "/" + e["pool"].GetString() + "/";
    for (const rapidjson::Value& d : e["devices"].GetArray()) {
      Row row{prefix + d["name"].GetString(), 0, ""};
      if (d.HasMember("runtimeError")) {
        row.outcome = -1;
        row.error = d["runtimeError"].GetString();
        ++errors;
      } else if (d["matches"].GetBool()) {
        row.outcome = 1;
        ++matched;
      }
      rows.push_back(std::move(row));
      const rapidjson::Value& present = d["references"];
      for (rapidjson::SizeType i = 0; i < present.Size() && i < exists.size(); ++i) exists[i] += present[i].GetBool();
    }
  }
  const std::string summary = std::to_string(matched) + " of " + std::to_string(rows.size()) + " devices match" +
                              (errors ? ", " + std::to_string(errors) + " failed to evaluate" : "");
  if (format == "text") {
    for (const Row& row : rows) {
      io.out << row.device << ": "
             << (row.outcome == 1 ? "true" : row.outcome == 0 ? "false" : "error: " + row.error) << "\n";
    }
    io.out << summary << "\n";
    for (rapidjson::SizeType i = 0; i < refs.Size(); ++i) {
      io.out << refs[i]["kind"].GetString() << " " << refs[i]["qualifiedName"].GetString() << " exists on "
             << exists[i] << " of " << rows.size() << " devices\n";
    }
    return kExitOk;
  }
  std::vector<rapidjson::Document> docs(1);
  rapidjson::Document& doc = docs.front();
  doc.SetObject();
  auto& a = doc.GetAllocator();
  auto str = [&](std::string_view s) {
    return rapidjson::Value(s.data(), static_cast<rapidjson::SizeType>(s.size()), a);
  };
  doc.AddMember("expression", str(*expression), a);
  doc.AddMember("devices", rapidjson::Value(static_cast<uint64_t>(rows.size())), a);
  doc.AddMember("matching", rapidjson::Value(static_cast<uint64_t>(matched)), a);
  doc.AddMember("errors", rapidjson::Value(static_cast<uint64_t>(errors)), a);
  rapidjson::Value results(rapidjson::kArrayType);
  for (const Row& row : rows) {
    rapidjson::Value o(rapidjson::kObjectType);
    o.AddMember("device", str(row.device), a);
    if (row.outcome >= 0) {
      o.AddMember("matches", rapidjson::Value(row.outcome == 1), a);
    } else {
      o.AddMember("error", str(row.error), a);
    }
    results.PushBack(o, a);
  }
  doc.AddMember("results", results, a);
  rapidjson::Value references(rapidjson::kArrayType);
  for (rapidjson::SizeType i = 0; i < refs.Size(); ++i) {
    rapidjson::Value o(rapidjson::kObjectType);
    o.AddMember("kind", str(refs[i]["kind"].GetString()), a);
    o.AddMember("name", str(refs[i]["qualifiedName"].GetString()), a);
    o.AddMember("existsOn", rapidjson::Value(static_cast<uint64_t>(exists[i])), a);
    references.PushBack(o, a);
  }
  doc.AddMember("references", references, a);
  if (auto printed = PrintDocuments(docs, "json", io.out); !printed.ok()) {
    io.err << "error: " << printed.error().message << "\n";
    return kExitBadInput;
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
