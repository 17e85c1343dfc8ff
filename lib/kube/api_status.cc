#include "kube/api_status.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "api/json_parse.h"
#include "common/status.h"
#include "rapidjson/document.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace draforge::kube {
namespace {

// The payload key under which the ApiStatus rides inside an absl::Status.
constexpr char kPayloadUrl[] = "type.draforge.dev/kube.ApiStatus";

std::string StringField(const rapidjson::Value& obj, const char* name) {
  auto it = obj.FindMember(name);
  if (it == obj.MemberEnd() || !it->value.IsString()) return "";
  return std::string(it->value.GetString(), it->value.GetStringLength());
}

std::optional<ApiStatus> FromJson(const rapidjson::Value& doc) {
  if (!doc.IsObject() || StringField(doc, "kind") != "Status") return std::nullopt;
  ApiStatus s;
  if (auto it = doc.FindMember("code"); it != doc.MemberEnd() && it->value.IsInt()) s.code = it->value.GetInt();
  s.reason = StringField(doc, "reason");
  s.message = StringField(doc, "message");
  if (auto d = doc.FindMember("details"); d != doc.MemberEnd() && d->value.IsObject()) {
    s.name = StringField(d->value, "name");
    s.group = StringField(d->value, "group");
    s.kind = StringField(d->value, "kind");
    if (auto r = d->value.FindMember("retryAfterSeconds"); r != d->value.MemberEnd() && r->value.IsInt()) {
      s.retry_after_seconds = r->value.GetInt();
    }
    if (auto c = d->value.FindMember("causes"); c != d->value.MemberEnd() && c->value.IsArray()) {
      for (const auto& cause : c->value.GetArray()) {
        if (!cause.IsObject()) continue;
        s.causes.push_back({StringField(cause, "reason"), StringField(cause, "message"), StringField(cause, "field")});
      }
    }
  }
  return s;
}

std::string ToJson(const ApiStatus& s) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  auto str = [&](const char* k, const std::string& v) {
    w.Key(k);
    w.String(v.data(), static_cast<rapidjson::SizeType>(v.size()));
  };
  w.StartObject();
  str("kind", "Status");
  w.Key("code");
  w.Int(s.code);
  str("reason", s.reason);
  str("message", s.message);
  w.Key("details");
  w.StartObject();
  str("name", s.name);
  str("group", s.group);
  str("kind", s.kind);
  w.Key("retryAfterSeconds");
  w.Int(s.retry_after_seconds);
  w.Key("causes");
  w.StartArray();
  for (const auto& c : s.causes) {
    w.StartObject();
    str("reason", c.reason);
    str("message", c.message);
    str("field", c.field);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  w.EndObject();
  return buf.GetString();
}

absl::StatusCode CodeFor(const ApiStatus& s) {
  switch (s.code) {
    case 400: return absl::StatusCode::kInvalidArgument;
    case 401: return absl::StatusCode::kUnauthenticated;
    case 403: return absl::StatusCode::kPermissionDenied;
    case 404: return absl::StatusCode::kNotFound;
    case 409: return s.reason == "AlreadyExists" ? absl::StatusCode::kAlreadyExists : absl::StatusCode::kAborted;
    case 410: return absl::StatusCode::kOutOfRange;
    case 422: return absl::StatusCode::kInvalidArgument;
    case 429: return absl::StatusCode::kResourceExhausted;
    case 504: return absl::StatusCode::kDeadlineExceeded;
    default: break;
  }
  if (s.code >= 500) return absl::StatusCode::kUnavailable;
  return absl::StatusCode::kUnknown;
}

}  // namespace

std::optional<ApiStatus> ParseApiStatus(std::string_view body) {
  rapidjson::Document doc;
  if (!api::ParseJsonInto<rapidjson::kParseDefaultFlags>(doc, body).ok()) return std::nullopt;
  return FromJson(doc);
}

ApiStatus GenericServerResponse(int code, std::string_view method, std::string_view body, int retry_after_seconds) {
  ApiStatus s;
  s.code = code;
  s.retry_after_seconds = std::max(retry_after_seconds, 0);
  std::string_view reason = "Unknown";
  std::string message =
      absl::StrCat("the server responded with the status code ", code, " but did not return more information");
  switch (code) {
    case 400: reason = "BadRequest"; message = "the server rejected our request for an unknown reason"; break;
    case 401: reason = "Unauthorized"; message = "the server has asked for the client to provide credentials"; break;
    case 403: reason = "Forbidden"; message = "the server refused the request"; break;
    case 404: reason = "NotFound"; message = "the server could not find the requested resource"; break;
    case 405:
      reason = "MethodNotAllowed";
      message = "the server does not allow this method on the requested resource";
      break;
    case 406:
      reason = "NotAcceptable";
      message = "the server was unable to respond with a content type that the client supports";
      break;
    case 409:
      reason = method == "POST" ? "AlreadyExists" : "Conflict";
      message = "the server reported a conflict";
      break;
    case 415: reason = "UnsupportedMediaType"; message = "the server does not accept the content type"; break;
    case 422: reason = "Invalid"; message = "the server rejected our request due to an error in our request"; break;
    case 429:
      reason = "TooManyRequests";
      message = "the server has received too many requests and has asked us to try again later";
      break;
    case 503: reason = "ServiceUnavailable"; message = "the server is currently unable to handle the request"; break;
    case 504:
      reason = "Timeout";
      message =
          "the server was unable to return a response in the time allotted, but may still be processing the request";
      break;
    default:
      if (code >= 500) {
        reason = "InternalError";
        message = "an error on the server has prevented the request from succeeding";
      }
      break;
  }
  s.reason = std::string(reason);
  std::string_view text = SV(absl::StripAsciiWhitespace(AV(body.substr(0, 500))));
  if (!text.empty()) {
    absl::StrAppend(&message, ": ", AV(text));
    s.causes.push_back({"UnexpectedServerResponse", std::string(text), ""});
  }
  s.message = std::move(message);
  return s;
}

absl::Status ApiError(const ApiStatus& status, std::string_view context) {
  std::string msg = absl::StrCat(AV(context), ": ", status.code);
  if (!status.reason.empty()) absl::StrAppend(&msg, " ", status.reason);
  if (!status.message.empty()) absl::StrAppend(&msg, ": ", status.message);
  // The message usually repeats the causes; name the fields explicitly only when it does not.
  for (const auto& c : status.causes) {
    if (!c.field.empty() && status.message.find(c.field) == std::string::npos) {
      absl::StrAppend(&msg, "; ", c.field, ": ", c.message);
    }
  }
  absl::Status out(CodeFor(status), msg);
  out.SetPayload(kPayloadUrl, absl::Cord(ToJson(status)));
  return out;
}

std::optional<ApiStatus> GetApiStatus(const absl::Status& status) {
  if (status.ok()) return std::nullopt;
  auto payload = status.GetPayload(kPayloadUrl);
  if (!payload) return std::nullopt;
  return ParseApiStatus(std::string(*payload));
}

namespace {
bool Has(const absl::Status& status, int code, std::string_view reason = {}) {
  auto s = GetApiStatus(status);
  return s && s->code == code && (reason.empty() || s->reason == reason);
}
}  // namespace

bool IsApiConflict(const absl::Status& status) { return Has(status, 409, "Conflict"); }
bool IsApiAlreadyExists(const absl::Status& status) { return Has(status, 409, "AlreadyExists"); }
bool IsApiNotFound(const absl::Status& status) { return Has(status, 404); }
bool IsApiForbidden(const absl::Status& status) { return Has(status, 403); }
bool IsApiGone(const absl::Status& status) { return Has(status, 410); }
bool IsApiInvalid(const absl::Status& status) { return Has(status, 422); }
bool IsApiTooManyRequests(const absl::Status& status) { return Has(status, 429); }

}  // namespace draforge::kube
