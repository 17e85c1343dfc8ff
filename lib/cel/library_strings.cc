// cel-go's ext.Strings, version 2 as the Kubernetes base environment enables it (apiserver
// pkg/cel/environment/base.go): no `reverse` (version 3).
// Indices are code point indices, as in cel-go.
#include <string>
#include <vector>

#include "cel/functions.h"
#include "cel/internal/str.h"
#include "cel/internal/values.h"

namespace draforge::cel {

using internal::Cat;
using internal::Err;

namespace {

// Byte offsets of each code point of `s`, plus s.size() at the end.
std::vector<size_t> Offsets(std::string_view s) {
  std::vector<size_t> o;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) o.push_back(i);
  }
  o.push_back(s.size());
  return o;
}

Value CharAt(EvalContext& ctx, const Value* a) {
  std::string_view s = a[0].str();
  int64_t i = a[1].int_value();
  auto o = Offsets(s);
  int64_t n = static_cast<int64_t>(o.size()) - 1;
  if (i < 0 || i > n) return Err(ctx, Cat("index out of range: ", i));
  if (i == n) return Value::String("");
  return Value::String(s.substr(o[i], o[i + 1] - o[i]));
}

int64_t CpIndex(const std::vector<size_t>& o, size_t byte) {
  for (size_t i = 0; i < o.size(); ++i) {
    if (o[i] == byte) return static_cast<int64_t>(i);
  }
  return -1;
}

// cel-go's indexOfOffset / lastIndexOfOffset: a negative offset is an error; an empty substring
// matches at the offset clamped to the end; an offset at or past the end finds nothing.
Value IndexOfImpl(EvalContext& ctx, std::string_view s, std::string_view sub, int64_t from, bool last) {
  if (from < 0) return Err(ctx, Cat("index out of range: ", from));
  auto o = Offsets(s);
  int64_t n = static_cast<int64_t>(o.size()) - 1;
  if (sub.empty()) return Value::Int(from > n ? n : from);
  if (from >= n) return Value::Int(-1);
  if (!last) {
    size_t p = s.find(sub, o[from]);
    return Value::Int(p == std::string_view::npos ? -1 : CpIndex(o, p));
  }
  int64_t sub_len = static_cast<int64_t>(internal::CodePointCount(sub));
  if (from > n - sub_len) from = n - sub_len;
  if (from < 0) return Value::Int(-1);
  size_t p = s.rfind(sub, o[from]);
  return Value::Int(p == std::string_view::npos ? -1 : CpIndex(o, p));
}
Value IndexOf(EvalContext& ctx, const Value* a) { return IndexOfImpl(ctx, a[0].str(), a[1].str(), 0, false); }
Value IndexOfFrom(EvalContext& ctx, const Value* a) {
  return IndexOfImpl(ctx, a[0].str(), a[1].str(), a[2].int_value(), false);
}
Value LastIndexOf(EvalContext& ctx, const Value* a) {
  int64_t n = static_cast<int64_t>(internal::CodePointCount(a[0].str()));
  if (a[1].str().empty()) return Value::Int(n);
  (void)ctx;
  size_t p = a[0].str().rfind(a[1].str());
  return Value::Int(p == std::string_view::npos ? -1 : CpIndex(Offsets(a[0].str()), p));
}
Value LastIndexOfFrom(EvalContext& ctx, const Value* a) {
  return IndexOfImpl(ctx, a[0].str(), a[1].str(), a[2].int_value(), true);
}
template <bool kLower>
Value Case(EvalContext& ctx, const Value* a) {
  std::string s(a[0].str());
  for (char& c : s) {
    if (kLower && c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (!kLower && c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return MakeString(*ctx.arena, s);
}
Value ReplaceN(EvalContext& ctx, std::string_view s, std::string_view from, std::string_view to, int64_t n) {
  std::string out;
  if (n == 0) return Value::String(s);
  if (from.empty()) {
    // Go's strings.Replace with an empty old string inserts `to` around every code point.
    auto o = Offsets(s);
    int64_t done = 0;
    for (size_t i = 0; i + 1 < o.size() + 1; ++i) {
      if (n < 0 || done < n) {
        out += to;
        ++done;
      }
      if (i + 1 < o.size()) out += s.substr(o[i], o[i + 1] - o[i]);
    }
    return MakeString(*ctx.arena, out);
  }
  size_t pos = 0;
  int64_t done = 0;
  while (n < 0 || done < n) {
    size_t p = s.find(from, pos);
    if (p == std::string_view::npos) break;
    out += s.substr(pos, p - pos);
    out += to;
    pos = p + from.size();
    ++done;
  }
  out += s.substr(pos);
  return MakeString(*ctx.arena, out);
}
Value Replace(EvalContext& ctx, const Value* a) { return ReplaceN(ctx, a[0].str(), a[1].str(), a[2].str(), -1); }
Value ReplaceLimit(EvalContext& ctx, const Value* a) {
  return ReplaceN(ctx, a[0].str(), a[1].str(), a[2].str(), a[3].int_value());
}
Value SplitN(EvalContext& ctx, std::string_view s, std::string_view sep, int64_t n) {
  MutableList* out = ctx.arena->New<MutableList>();
  if (n == 0) return Value::List(out);
  if (sep.empty()) {
    auto o = Offsets(s);
    for (size_t i = 0; i + 1 < o.size(); ++i) {
      if (n > 0 && static_cast<int64_t>(out->size()) == n - 1) {
        out->Append(*ctx.arena, Value::String(s.substr(o[i])));
        return Value::List(out);
      }
      out->Append(*ctx.arena, Value::String(s.substr(o[i], o[i + 1] - o[i])));
    }
    return Value::List(out);
  }
  size_t pos = 0;
  for (;;) {
    if (n > 0 && static_cast<int64_t>(out->size()) == n - 1) break;
    size_t p = s.find(sep, pos);
    if (p == std::string_view::npos) break;
    out->Append(*ctx.arena, Value::String(s.substr(pos, p - pos)));
    pos = p + sep.size();
  }
  out->Append(*ctx.arena, Value::String(s.substr(pos)));
  return Value::List(out);
}
Value Split(EvalContext& ctx, const Value* a) { return SplitN(ctx, a[0].str(), a[1].str(), -1); }
Value SplitLimit(EvalContext& ctx, const Value* a) { return SplitN(ctx, a[0].str(), a[1].str(), a[2].int_value()); }
Value SubstringImpl(EvalContext& ctx, std::string_view s, int64_t start, int64_t end, bool has_end) {
  auto o = Offsets(s);
  int64_t n = static_cast<int64_t>(o.size()) - 1;
  if (!has_end) {
    if (start < 0 || start > n) return Err(ctx, Cat("index out of range: ", start));
    return Value::String(s.substr(o[start]));
  }
  if (start < 0 || start > n) return Err(ctx, Cat("index out of range: ", start));
  if (end < 0 || end > n) return Err(ctx, Cat("index out of range: ", end));
  if (start > end) return Err(ctx, Cat("invalid substring range. start: ", start, ", end: ", end));
  return Value::String(s.substr(o[start], o[end] - o[start]));
}
Value Substring(EvalContext& ctx, const Value* a) { return SubstringImpl(ctx, a[0].str(), a[1].int_value(), 0, false); }
Value SubstringRange(EvalContext& ctx, const Value* a) {
  return SubstringImpl(ctx, a[0].str(), a[1].int_value(), a[2].int_value(), true);
}
bool IsSpaceAt(std::string_view s, size_t i, size_t* len) {
  unsigned char c = s[i];
  *len = 1;
  if (c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r') return true;
  if (c == 0xC2 && i + 1 < s.size() && (static_cast<unsigned char>(s[i + 1]) == 0x85 ||
                                        static_cast<unsigned char>(s[i + 1]) == 0xA0)) {
    *len = 2;
    return true;
  }
  if (c == 0xE2 && i + 2 < s.size()) {
    unsigned char d = s[i + 1], e = s[i + 2];
    if ((d == 0x80 && (e <= 0x8A || e == 0xA8 || e == 0xA9 || e == 0xAF)) || (d == 0x81 && e == 0x9F)) {
      *len = 3;
      return true;
    }
  }
  if (c == 0xE3 && i + 2 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x80 &&
      static_cast<unsigned char>(s[i + 2]) == 0x80) {
    *len = 3;
    return true;
  }
  if (c == 0xE1 && i + 2 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x9A &&
      static_cast<unsigned char>(s[i + 2]) == 0x80) {
    *len = 3;
    return true;
  }
  return false;
}
Value Trim(EvalContext&, const Value* a) {
  std::string_view s = a[0].str();
  size_t len;
  while (!s.empty() && IsSpaceAt(s, 0, &len)) s.remove_prefix(len);
  for (;;) {
    bool trimmed = false;
    for (size_t k = 1; k <= 3 && k <= s.size(); ++k) {
      size_t i = s.size() - k;
      if (IsSpaceAt(s, i, &len) && len == k) {
        s.remove_suffix(k);
        trimmed = true;
        break;
      }
    }
    if (!trimmed) break;
  }
  return Value::String(s);
}
Value JoinImpl(EvalContext& ctx, const ListValue* l, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < l->size(); ++i) {
    Value v = l->Get(i);
    if (v.kind() != ValueKind::kString) return Err(ctx, Cat("join: invalid input: ", DebugString(v)));
    if (i) out += sep;
    out += v.str();
  }
  return MakeString(*ctx.arena, out);
}
Value Join(EvalContext& ctx, const Value* a) { return JoinImpl(ctx, a[0].list(), ""); }
Value JoinSep(EvalContext& ctx, const Value* a) { return JoinImpl(ctx, a[0].list(), a[1].str()); }
Value Quote(EvalContext& ctx, const Value* a) {
  std::string out = "\"";
  for (unsigned char c : a[0].str()) {
    switch (c) {
      case '\a': out += "\\a"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\v': out += "\\v"; break;
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      default: out += static_cast<char>(c);
    }
  }
  out += "\"";
  return MakeString(*ctx.arena, out);
}

}  // namespace

void RegisterStringsLibrary(FunctionRegistry& r) {
  const Type S = Type::String(), I = Type::Int();
  r.Add("charAt", "string_char_at_int", {S, I}, S, true, CharAt);
  r.Add("indexOf", "string_index_of_string", {S, S}, I, true, IndexOf);
  r.Add("indexOf", "string_index_of_string_int", {S, S, I}, I, true, IndexOfFrom);
  r.Add("lastIndexOf", "string_last_index_of_string", {S, S}, I, true, LastIndexOf);
  r.Add("lastIndexOf", "string_last_index_of_string_int", {S, S, I}, I, true, LastIndexOfFrom);
  r.Add("lowerAscii", "string_lower_ascii", {S}, S, true, Case<true>);
  r.Add("upperAscii", "string_upper_ascii", {S}, S, true, Case<false>);
  r.Add("replace", "string_replace_string_string", {S, S, S}, S, true, Replace);
  r.Add("replace", "string_replace_string_string_int", {S, S, S, I}, S, true, ReplaceLimit);
  r.Add("split", "string_split_string", {S, S}, Type::List(S), true, Split);
  r.Add("split", "string_split_string_int", {S, S, I}, Type::List(S), true, SplitLimit);
  r.Add("substring", "string_substring_int", {S, I}, S, true, Substring);
  r.Add("substring", "string_substring_int_int", {S, I, I}, S, true, SubstringRange);
  r.Add("trim", "string_trim", {S}, S, true, Trim);
  r.Add("join", "list_join", {Type::List(S)}, S, true, Join);
  r.Add("join", "list_join_string", {Type::List(S), S}, S, true, JoinSep);
  r.Add("strings.quote", "strings_quote", {S}, S, false, Quote);
  RegisterStringsFormat(r);
}

}  // namespace draforge::cel
