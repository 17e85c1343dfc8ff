// The Kubernetes URL CEL library (k8s.io/apiserver/pkg/cel/library/urls.go): kubernetes.URL values
// parsed as Go's net/url does (url.h), their accessors, and isURL.
#include <string>

#include "cel/functions.h"
#include "cel/internal/str.h"
#include "cel/internal/values.h"
#include "cel/url.h"

namespace draforge::cel {

using internal::Err;

namespace {

Value StringToURL(EvalContext& ctx, const Value* a) {
  // Upstream checks the string with ParseRequestURI, then keeps what url.Parse makes of it (which
  // splits off a fragment).
  Url u;
  std::string error;
  if (!ParseRequestURI(a[0].str(), &u, &error) || !ParseURL(a[0].str(), &u, &error)) {
    return Err(ctx, "URL parse error during conversion from string: " + error);
  }
  return Value::URL(ctx.arena->New<Url>(std::move(u)));
}

Value IsURL(EvalContext&, const Value* a) {
  Url u;
  std::string error;
  return Value::Bool(ParseRequestURI(a[0].str(), &u, &error));
}

Value GetScheme(EvalContext& ctx, const Value* a) { return MakeString(*ctx.arena, a[0].url()->scheme); }
Value GetHost(EvalContext& ctx, const Value* a) { return MakeString(*ctx.arena, a[0].url()->host); }
Value GetHostname(EvalContext& ctx, const Value* a) { return MakeString(*ctx.arena, a[0].url()->Hostname()); }
Value GetPort(EvalContext& ctx, const Value* a) { return MakeString(*ctx.arena, a[0].url()->Port()); }
Value GetEscapedPath(EvalContext& ctx, const Value* a) { return MakeString(*ctx.arena, a[0].url()->EscapedPath()); }

Value GetQuery(EvalContext& ctx, const Value* a) {
  const auto query = a[0].url()->Query();
  ArrayMap* m = ctx.arena->New<ArrayMap>();
  m->Reserve(*ctx.arena, query.size());
  for (const auto& [key, values] : query) {
    Value* items = ctx.arena->NewArray<Value>(values.size());
    for (size_t i = 0; i < values.size(); ++i) items[i] = MakeString(*ctx.arena, values[i]);
    m->Insert(*ctx.arena, MakeString(*ctx.arena, key), Value::List(ctx.arena->New<ArrayList>(items, values.size())));
  }
  return Value::Map(m);
}

}  // namespace

void RegisterUrlLibrary(FunctionRegistry& r) {
  const Type U = Type::Object("kubernetes.URL"), S = Type::String();
  r.Add("url", "string_to_url", {S}, U, false, StringToURL);
  r.Add("getScheme", "url_get_scheme", {U}, S, true, GetScheme);
  r.Add("getHost", "url_get_host", {U}, S, true, GetHost);
  r.Add("getHostname", "url_get_hostname", {U}, S, true, GetHostname);
  r.Add("getPort", "url_get_port", {U}, S, true, GetPort);
  r.Add("getEscapedPath", "url_get_escaped_path", {U}, S, true, GetEscapedPath);
  r.Add("getQuery", "url_get_query", {U}, Type::Map(S, Type::List(S)), true, GetQuery);
  r.Add("isURL", "is_url_string", {S}, Type::Bool(), false, IsURL);
}

}  // namespace draforge::cel
