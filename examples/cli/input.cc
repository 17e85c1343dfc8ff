#include "input.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "common/status.h"

namespace draforge::cli {
namespace {

namespace fs = std::filesystem;

absl::StatusOr<std::string> ReadSource(const std::string& source, size_t max_bytes) {
  std::string data;
  if (source == "-") {
    std::ostringstream buf;
    buf << std::cin.rdbuf();
    data = buf.str();
  } else {
    std::error_code ec;
    const auto size = fs::file_size(source, ec);
    if (ec) return absl::NotFoundError(absl::StrCat(source, ": ", ec.message()));
    if (size > max_bytes) {
      return absl::ResourceExhaustedError(absl::StrCat(source, ": file is ", size, " bytes, more than the limit of ",
                                                       max_bytes, " bytes (--max-input-size)"));
    }
    std::ifstream in(source, std::ios::binary);
    if (!in) return absl::NotFoundError(absl::StrCat(source, ": ", std::strerror(errno)));
    data.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  return data;
}

}  // namespace

std::string InputObject::Where() const {
  if (index == 0 && line <= 1) return absl::StrCat(source, ": ");
  return absl::StrCat(source, " (object ", index + 1, ", line ", line, "): ");
}

absl::StatusOr<std::vector<InputObject>> ReadInputs(const std::vector<std::string>& sources,
                                                    const InputOptions& options) {
  std::vector<std::string> files;
  for (const std::string& s : sources) {
    std::error_code ec;
    if (s != "-" && fs::is_directory(s, ec)) {
      std::vector<std::string> in_dir;
      for (const auto& e : fs::directory_iterator(s, ec)) {
        const std::string ext = e.path().extension().string();
        if (e.is_regular_file() && (ext == ".yaml" || ext == ".yml" || ext == ".json")) {
          in_dir.push_back(e.path().string());
        }
      }
      if (ec) return absl::NotFoundError(absl::StrCat(s, ": ", ec.message()));
      std::sort(in_dir.begin(), in_dir.end());
      files.insert(files.end(), in_dir.begin(), in_dir.end());
    } else {
      files.push_back(s);
    }
  }
  std::vector<InputObject> out;
  for (const std::string& file : files) {
    ASSIGN_OR_RETURN(std::string text, ReadSource(file, options.decode.max_bytes));
    const std::string name = file == "-" ? "<stdin>" : file;
    auto decoded = api::DecodeStream(text, options.decode);
    if (!decoded.ok()) {
      return absl::Status(decoded.status().code(), absl::StrCat(name, ": ", decoded.status().message()));
    }
    for (api::DecodedObject& d : *decoded) {
      InputObject o;
      o.source = name;
      o.index = d.index;
      o.line = d.line;
      o.object = std::move(d.object);
      o.warnings = std::move(d.warnings);
      out.push_back(std::move(o));
    }
  }
  return out;
}

absl::Status ApplyAll(const std::vector<InputObject>& inputs, store::Cluster& cluster) {
  for (const InputObject& in : inputs) {
    if (!in.object.ok()) continue;
    absl::Status s = cluster.Apply(*in.object);
    if (!s.ok()) return absl::Status(s.code(), absl::StrCat(in.Where(), s.message()));
  }
  return absl::OkStatus();
}

}  // namespace draforge::cli
