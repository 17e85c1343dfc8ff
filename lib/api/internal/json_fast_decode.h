// The fast path of JSON decoding: a strict, validating pull lexer over the input text and a
// schema-driven decoder that fills the api types straight from it, without building a DOM first.
// Internal to lib/api.
//
// Why a second decoder: building RapidJSON's DOM and then walking it costs as much again as the DOM
// parse itself, and 100k-device slice lists are the common large input. The fast path only ever
// answers "decoded" or "I cannot tell": it never produces an error message. Anything unusual (a
// type mismatch, a duplicate or unknown field, a value it does not parse itself, a syntax error)
// makes it give up, and the caller decodes that object (or the whole text) again through the DOM
// decoder, which owns every error and warning message. So the messages cannot drift apart, and the
// fast path only has to be right about input it accepts.
//
// The lexer accepts a subset of what RapidJSON accepts (RFC 8259 JSON; numbers with at most 19
// integer digits and two exponent digits; surrogate escapes only in valid pairs), so text it accepts
// parses the same way in both decoders.
#ifndef DRAFORGE_API_INTERNAL_JSON_FAST_DECODE_H_
#define DRAFORGE_API_INTERNAL_JSON_FAST_DECODE_H_

#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "api/internal/json_decode.h"
#include "api/internal/schema.h"
#include "api/json_parse.h"
#include "api/map.h"
#include "api/quantity.h"
#include "api/raw_json.h"

namespace draforge::api::internal {

// Map entries already decoded in this text, by their exact text (`"key":value`): equal text decodes
// to an equal entry, so a later map takes the same Node instead of decoding and allocating a copy
// (see api::Map). Holds one reference on each node until it is destroyed; one per decoded text.
class EntryInterner {
 public:
  EntryInterner() = default;
  EntryInterner(const EntryInterner&) = delete;
  EntryInterner& operator=(const EntryInterner&) = delete;
  ~EntryInterner() {
    for (auto& [key, e] : entries_) e.unref(e.node);
    for (auto& [key, m] : maps_) m.destroy(m.map);
  }

  // Whole maps already decoded in this text, by their exact text (`{...}`): a map equal to an
  // earlier one (the capacity of every GPU of a model) shares its entry array. Gives up for a
  // value type whose first kGiveUp maps were all different (attribute maps with a uuid).
  template <typename V>
  const Map<V>* FindMap(std::string_view text) {
    KeyStats& stats = map_stats_[Tag<V>()];
    if (stats.hits == 0 && stats.misses >= kGiveUp) return nullptr;
    auto it = maps_.find(Key{Tag<V>(), AV(text)});
    if (it == maps_.end()) {
      ++stats.misses;
      return nullptr;
    }
    ++stats.hits;
    return static_cast<const Map<V>*>(it->second.map);
  }
  template <typename V>
  void AddMap(std::string_view text, const Map<V>& map) {
    const KeyStats& stats = map_stats_[Tag<V>()];
    if (stats.hits == 0 && stats.misses >= kGiveUp) return;
    maps_.try_emplace(Key{Tag<V>(), AV(text)}, MapEntry{new Map<V>(map), &DestroyMap<V>});
  }

  // The node of map type V decoded from `text`, with a new reference for the caller; or null.
  template <typename V>
  typename Map<V>::Node* Find(std::string_view text) {
    auto it = entries_.find(Key{Tag<V>(), AV(text)});
    if (it == entries_.end()) return nullptr;
    auto* node = static_cast<typename Map<V>::Node*>(it->second.node);
    Map<V>::Ref(node);
    return node;
  }
  // Whether entries of the key whose text (`"key":`) is `key_text` are worth remembering (Count
  // records each lookup's outcome). A key whose first kGiveUp entries were all different (a serial number, a UUID) is
  // decoded without the table from then on: the table stays small enough to stay in cache, and
  // nothing is lost but sharing that was not happening.
  template <typename V>
  bool Worth(std::string_view key_text) const {
    auto it = keys_.find(Key{Tag<V>(), AV(key_text)});
    return it == keys_.end() || it->second.hits > 0 || it->second.misses < kGiveUp;
  }
  // A boxed string equal to `s`, sharing the block of an equal string decoded earlier in this text
  // (device names such as "gpu-0" repeat on every node). Gives up sharing, as Worth does, once the
  // first kGiveUp strings were all different.
  BoxedOptional<std::string> SharedString(std::string_view s) {
    if (string_hits_ == 0 && string_misses_ >= kGiveUp) return BoxedOptional<std::string>(std::string(s));
    auto it = strings_.find(AV(s));
    if (it != strings_.end()) {
      ++string_hits_;
      return it->second;
    }
    ++string_misses_;
    BoxedOptional<std::string> boxed{std::string(s)};
    strings_.emplace(std::string(s), boxed);
    return boxed;
  }
  template <typename V>
  void Count(std::string_view key_text, bool hit) {
    KeyStats& stats = keys_[Key{Tag<V>(), AV(key_text)}];
    if (hit) {
      ++stats.hits;
    } else {
      ++stats.misses;
    }
  }
  // Remembers `node` (which stays the caller's) as decoded from `text`.
  template <typename V>
  void Add(std::string_view text, typename Map<V>::Node* node) {
    Map<V>::Ref(node);
    auto [it, inserted] = entries_.try_emplace(Key{Tag<V>(), AV(text)}, Entry{node, &Unref<V>});
    if (!inserted) Map<V>::Unref(node);
  }

 private:
  template <typename V>
  static void DestroyMap(void* map) {
    delete static_cast<Map<V>*>(map);
  }
  template <typename V>
  static void Unref(void* node) {
    Map<V>::Unref(static_cast<typename Map<V>::Node*>(node));
  }
  // One address per value type, so that equal text of different types stays apart.
  template <typename V>
  static const void* Tag() {
    return reinterpret_cast<const void*>(&Unref<V>);
  }
  using Key = std::pair<const void*, absl::string_view>;
  struct Entry {
    void* node;
    void (*unref)(void*);
  };
  struct KeyStats {
    uint32_t hits = 0;
    uint32_t misses = 0;
  };
  struct MapEntry {
    void* map;
    void (*destroy)(void*);
  };
  static constexpr uint32_t kGiveUp = 1024;
  absl::flat_hash_map<Key, Entry> entries_;
  absl::flat_hash_map<Key, KeyStats> keys_;
  absl::flat_hash_map<Key, MapEntry> maps_;
  absl::flat_hash_map<const void*, KeyStats> map_stats_;
  absl::flat_hash_map<std::string, BoxedOptional<std::string>> strings_;
  uint32_t string_hits_ = 0;
  uint32_t string_misses_ = 0;
};

// A pull lexer over one JSON text. Every method returns false on anything it does not accept;
// the position is then unspecified.
class FastJson {
 public:
  explicit FastJson(std::string_view text) : begin_(text.data()), p_(text.data()), end_(text.data() + text.size()) {}

  EntryInterner& interner() { return interner_; }
  // Where the key that NextKey last read starts (its opening quote).
  size_t key_start() const { return key_start_; }

  size_t pos() const { return static_cast<size_t>(p_ - begin_); }
  // Arrays and objects open around the position. The lexer gives up past kMaxJsonDepth, so the DOM
  // decoder reports the depth error with its position and both decoders accept the same nesting.
  int depth() const { return depth_; }
  // Moves to `pos`, where `depth` containers are open.
  void set_pos(size_t pos, int depth) {
    p_ = begin_ + pos;
    depth_ = depth;
  }
  std::string_view text() const { return {begin_, static_cast<size_t>(end_ - begin_)}; }

  // The next significant character without consuming it; '\0' at the end.
  char Peek() {
    SkipWs();
    return p_ < end_ ? *p_ : '\0';
  }
  bool AtEnd() {
    SkipWs();
    return p_ == end_;
  }
  bool Consume(char c) {
    SkipWs();
    if (p_ < end_ && *p_ == c) {
      ++p_;
      return true;
    }
    return false;
  }

  // Object members: call BeginObject, then NextKey until it sets `done`.
  bool BeginObject() {
    first_ = true;
    return Consume('{') && ++depth_ <= kMaxJsonDepth;
  }
  bool NextKey(std::string_view& key, bool& done) {
    SkipWs();
    if (p_ == end_) return false;
    if (*p_ == '}') {
      ++p_;
      --depth_;
      done = true;
      return true;
    }
    if (!first_) {
      if (*p_ != ',') return false;
      ++p_;
    }
    first_ = false;
    done = false;
    SkipWs();
    key_start_ = pos();
    if (!String(key)) return false;
    return Consume(':');
  }
  // After a member's value, the next NextKey needs a comma: nested objects reset first_.
  void MemberDone() { first_ = false; }

  bool BeginArray() {
    first_ = true;
    return Consume('[') && ++depth_ <= kMaxJsonDepth;
  }
  bool NextElement(bool& done) {
    SkipWs();
    if (p_ == end_) return false;
    if (*p_ == ']') {
      ++p_;
      --depth_;
      done = true;
      return true;
    }
    if (!first_) {
      if (*p_ != ',') return false;
      ++p_;
    }
    first_ = false;
    done = false;
    return true;
  }

  // A JSON string. The view points into the input when the string has no escapes, else into a
  // scratch buffer that the next escaped string overwrites.
  bool String(std::string_view& out) {
    SkipWs();
    if (p_ == end_ || *p_ != '"') return false;
    const char* start = ++p_;
    while (p_ < end_) {
      const unsigned char c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        out = std::string_view(start, static_cast<size_t>(p_ - start));
        ++p_;
        return true;
      }
      if (c == '\\') return Unescape(start, out);
      if (c < 0x20) return false;
      ++p_;
    }
    return false;
  }

  bool Null() { return Literal("null"); }
  bool Bool(bool& out) {
    const char c = Peek();
    if (c == 't') {
      out = true;
      return Literal("true");
    }
    if (c == 'f') {
      out = false;
      return Literal("false");
    }
    return false;
  }

  // An integer without fraction or exponent that fits int64 (at most 18 digits, no "-0").
  bool Int64(int64_t& out) {
    SkipWs();
    const char* p = p_;
    bool neg = false;
    if (p < end_ && *p == '-') {
      neg = true;
      ++p;
    }
    if (p == end_ || *p < '0' || *p > '9') return false;
    if (*p == '0') {
      ++p;
      if (neg) return false;
      if (p < end_ && (*p == '.' || *p == 'e' || *p == 'E' || (*p >= '0' && *p <= '9'))) return false;
      out = 0;
      p_ = p;
      return true;
    }
    int64_t v = 0;
    int digits = 0;
    while (p < end_ && *p >= '0' && *p <= '9') {
      if (++digits > 18) return false;
      v = v * 10 + (*p - '0');
      ++p;
    }
    if (p < end_ && (*p == '.' || *p == 'e' || *p == 'E')) return false;
    out = neg ? -v : v;
    p_ = p;
    return true;
  }

  // Skips one value of any type, validating it.
  bool SkipValue() {
    int depth = 0;
    // Each level's container type: '{' or '['. Depth is bounded by the input size.
    std::string stack;
    bool expect_value = true;
    for (;;) {
      if (expect_value) {
        const char c = Peek();
        if (c == '{' || c == '[') {
          ++p_;
          stack.push_back(c);
          if (++depth + depth_ > kMaxJsonDepth) return false;
          // Empty container?
          const char close = c == '{' ? '}' : ']';
          if (Peek() == close) {
            ++p_;
            stack.pop_back();
            --depth;
          } else if (c == '{') {
            std::string_view key;
            if (!String(key) || !Consume(':')) return false;
            continue;
          } else {
            continue;
          }
        } else if (c == '"') {
          std::string_view s;
          if (!String(s)) return false;
        } else if (c == 't' || c == 'f') {
          bool b;
          if (!Bool(b)) return false;
        } else if (c == 'n') {
          if (!Null()) return false;
        } else if (!Number()) {
          return false;
        }
      }
      // After a value: close containers or move to the next member/element.
      if (depth == 0) return true;
      const char c = Peek();
      const char open = stack.back();
      if ((open == '{' && c == '}') || (open == '[' && c == ']')) {
        ++p_;
        stack.pop_back();
        --depth;
        expect_value = false;
        continue;
      }
      if (c != ',') return false;
      ++p_;
      if (open == '{') {
        std::string_view key;
        if (!String(key) || !Consume(':')) return false;
      }
      expect_value = true;
    }
  }

 private:
  void SkipWs() {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
  }
  bool Literal(std::string_view word) {
    SkipWs();
    if (static_cast<size_t>(end_ - p_) < word.size() || std::memcmp(p_, word.data(), word.size()) != 0) return false;
    p_ += word.size();
    return true;
  }
  // RFC 8259 number, conservatively bounded (see the file comment).
  bool Number() {
    const char* p = p_;
    if (p < end_ && *p == '-') ++p;
    if (p == end_ || *p < '0' || *p > '9') return false;
    if (*p == '0') {
      ++p;
    } else {
      int digits = 0;
      while (p < end_ && *p >= '0' && *p <= '9') {
        if (++digits > 19) return false;
        ++p;
      }
    }
    if (p < end_ && *p == '.') {
      ++p;
      int digits = 0;
      while (p < end_ && *p >= '0' && *p <= '9') {
        if (++digits > 19) return false;
        ++p;
      }
      if (digits == 0) return false;
    }
    if (p < end_ && (*p == 'e' || *p == 'E')) {
      ++p;
      if (p < end_ && (*p == '+' || *p == '-')) ++p;
      int digits = 0;
      while (p < end_ && *p >= '0' && *p <= '9') {
        if (++digits > 2) return false;
        ++p;
      }
      if (digits == 0) return false;
    }
    p_ = p;
    return true;
  }
  static int Hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }
  bool Hex4(unsigned& out) {
    if (end_ - p_ < 4) return false;
    out = 0;
    for (int i = 0; i < 4; ++i) {
      const int h = Hex(p_[i]);
      if (h < 0) return false;
      out = out * 16 + static_cast<unsigned>(h);
    }
    p_ += 4;
    return true;
  }
  void AppendUtf8(unsigned cp) {
    if (cp < 0x80) {
      scratch_.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      scratch_.push_back(static_cast<char>(0xC0 | (cp >> 6)));
      scratch_.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      scratch_.push_back(static_cast<char>(0xE0 | (cp >> 12)));
      scratch_.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      scratch_.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      scratch_.push_back(static_cast<char>(0xF0 | (cp >> 18)));
      scratch_.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      scratch_.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      scratch_.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }
  // Continues a string from `start` (its first character) at an escape.
  bool Unescape(const char* start, std::string_view& out) {
    scratch_.assign(start, static_cast<size_t>(p_ - start));
    while (p_ < end_) {
      const unsigned char c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        ++p_;
        out = scratch_;
        return true;
      }
      if (c < 0x20) return false;
      if (c != '\\') {
        scratch_.push_back(static_cast<char>(c));
        ++p_;
        continue;
      }
      if (++p_ == end_) return false;
      const char e = *p_++;
      switch (e) {
        case '"': scratch_.push_back('"'); break;
        case '\\': scratch_.push_back('\\'); break;
        case '/': scratch_.push_back('/'); break;
        case 'b': scratch_.push_back('\b'); break;
        case 'f': scratch_.push_back('\f'); break;
        case 'n': scratch_.push_back('\n'); break;
        case 'r': scratch_.push_back('\r'); break;
        case 't': scratch_.push_back('\t'); break;
        case 'u': {
          unsigned cp = 0;
          if (!Hex4(cp)) return false;
          if (cp >= 0xDC00 && cp <= 0xDFFF) return false;
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            unsigned lo = 0;
            if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') return false;
            p_ += 2;
            if (!Hex4(lo) || lo < 0xDC00 || lo > 0xDFFF) return false;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          AppendUtf8(cp);
          break;
        }
        default: return false;
      }
    }
    return false;
  }

  const char* begin_;
  const char* p_;
  const char* end_;
  bool first_ = true;
  int depth_ = 0;
  size_t key_start_ = 0;
  std::string scratch_;
  EntryInterner interner_;
};

template <typename T>
bool FastDecode(FastJson& j, T& out);

inline bool FastDecodeScalar(FastJson& j, std::string& out) {
  std::string_view s;
  if (!j.String(s)) return false;
  out.assign(s.data(), s.size());
  return true;
}
inline bool FastDecodeScalar(FastJson& j, bool& out) { return j.Bool(out); }
inline bool FastDecodeScalar(FastJson& j, int64_t& out) { return j.Int64(out); }
inline bool FastDecodeScalar(FastJson& j, int32_t& out) {
  int64_t wide = 0;
  if (!j.Int64(wide)) return false;
  if (wide < std::numeric_limits<int32_t>::min() || wide > std::numeric_limits<int32_t>::max()) return false;
  out = static_cast<int32_t>(wide);
  return true;
}
inline bool FastDecodeScalar(FastJson& j, Quantity& out) {
  // Only the string form; numbers and anything Quantity::Parse refuses go to the DOM decoder.
  std::string_view s;
  if (!j.String(s)) return false;
  const size_t begin = s.find_first_not_of(" \t\n\v\f\r");
  if (begin == std::string_view::npos) return false;
  s = s.substr(begin, s.find_last_not_of(" \t\n\v\f\r") - begin + 1);
  auto q = Quantity::Parse(s);
  if (!q.ok()) return false;
  out = *std::move(q);
  return true;
}
// Opaque values are rare: skip them lexically, then let RapidJSON read that span, so the stored
// text is exactly what the DOM decoder would store.
inline bool FastDecodeScalar(FastJson& j, RawJson& out) {
  j.Peek();
  const size_t start = j.pos();
  if (!j.SkipValue()) return false;
  const std::string_view span = j.text().substr(start, j.pos() - start);
  rapidjson::Document doc;
  if (!ParseJsonInto(doc, span, kMaxJsonDepth - j.depth()).ok()) return false;
  std::string path;
  if (!CheckDuplicateKeys(doc, path).ok()) return false;
  out.json = RawText(doc);
  return true;
}

// L is a std::vector or an api::BoxedVector.
template <typename L>
bool FastDecodeList(FastJson& j, L& out) {
  using V = typename L::value_type;
  if (!j.BeginArray()) return false;
  out.clear();
  for (;;) {
    bool done = false;
    if (!j.NextElement(done)) return false;
    if (done) break;
    V& elem = out.emplace_back();
    if (j.Peek() == 'n') {
      if (!j.Null()) return false;
    } else if (!FastDecode(j, elem)) {
      return false;
    }
    j.MemberDone();
  }
  return true;
}

template <typename V>
bool FastDecodeMap(FastJson& j, Map<V>& out) {
  j.Peek();
  const size_t map_start = j.pos();
  if (!j.BeginObject()) return false;
  out = Map<V>();
  for (;;) {
    std::string_view key_view;
    bool done = false;
    if (!j.NextKey(key_view, done)) return false;
    if (done) break;
    const size_t entry_start = j.key_start();
    j.Peek();
    const size_t value_start = j.pos();
    const std::string_view key_text = j.text().substr(entry_start, value_start - entry_start);
    if (!j.interner().Worth<V>(key_text)) {
      std::string key(key_view);
      V elem{};
      if (j.Peek() == 'n') {
        if (!j.Null()) return false;
      } else if (!FastDecode(j, elem)) {
        return false;
      }
      j.MemberDone();
      out.AppendNode(Map<V>::NewNode(std::move(key), std::move(elem)));
      continue;
    }
    if (!j.SkipValue()) return false;
    const std::string_view entry_text = j.text().substr(entry_start, j.pos() - entry_start);
    typename Map<V>::Node* node = j.interner().Find<V>(entry_text);
    j.interner().Count<V>(key_text, node != nullptr);
    if (node == nullptr) {
      const size_t value_end = j.pos();
      // Read the key again: skipping the value may have reused the buffer of an escaped key.
      j.set_pos(entry_start, j.depth());
      if (!j.String(key_view)) return false;
      std::string key(key_view);
      j.set_pos(value_start, j.depth());
      V elem{};
      if (j.Peek() == 'n') {
        if (!j.Null()) return false;
      } else if (!FastDecode(j, elem)) {
        return false;
      }
      if (j.pos() != value_end) return false;
      node = Map<V>::NewNode(std::move(key), std::move(elem));
      j.interner().Add<V>(entry_text, node);
    }
    j.MemberDone();
    out.AppendNode(node);
  }
  out.ShrinkToFit();
  if (out.SortAndFindDuplicate() != nullptr) return false;
  const std::string_view map_text = j.text().substr(map_start, j.pos() - map_start);
  if (const Map<V>* shared = j.interner().FindMap<V>(map_text)) {
    out = *shared;
  } else {
    j.interner().AddMap<V>(map_text, out);
  }
  return true;
}

// Decodes the members of an object whose '{' (and, at the top level, first members) the caller
// has consumed: the next token is a ',' or the closing '}'. kTopLevel skips apiVersion and kind.
template <typename T, bool kTopLevel = false>
bool FastDecodeMembers(FastJson& j, T& out) {
  static constexpr auto kFields = Schema<T>::Fields();
  uint64_t seen = 0;
  for (;;) {
    std::string_view key;
    bool done = false;
    if (!j.NextKey(key, done)) return false;
    if (done) return true;
    if constexpr (kTopLevel) {
      if (key == "apiVersion" || key == "kind") {
        if (!j.SkipValue()) return false;
        j.MemberDone();
        continue;
      }
    }
    bool matched = false;
    bool ok = true;
    int index = 0;
    std::apply(
        [&](const auto&... field) {
          (([&] {
             if (matched) return;
             const int my_index = index++;
             if (field.name != key) return;
             matched = true;
             if (seen & (uint64_t{1} << my_index)) {
               ok = false;
               return;
             }
             seen |= uint64_t{1} << my_index;
             auto& member = out.*(field.member);
             using M = std::remove_reference_t<decltype(member)>;
             const bool was_null = j.Peek() == 'n';
             if (was_null) {
               member = M{};
               ok = j.Null();
             } else {
               ok = FastDecode(j, member);
             }
             NoteSpelling(field, out, was_null);
           }()),
           ...);
        },
        kFields);
    if (!ok) return false;
    if (!matched) {
      if constexpr (HasOther<T>::value) {
        auto& other = out.*(Schema<T>::kOther);
        for (const auto& kv : other) {
          if (kv.first == key) return false;
        }
        std::string name(key);
        RawJson raw;
        if (!FastDecodeScalar(j, raw)) return false;
        other.emplace_back(std::move(name), std::move(raw));
      } else {
        // Unknown fields are warnings or errors with a path: the DOM decoder reports them.
        return false;
      }
    }
    j.MemberDone();
  }
}

// An attribute is read as its eight fields, then stored compactly.
inline bool FastDecodeScalar(FastJson& j, DeviceAttribute& out) {
  DeviceAttribute::Fields fields;
  if (!FastDecode(j, fields)) return false;
  out = DeviceAttribute(std::move(fields));
  return true;
}

template <typename T>
bool FastDecode(FastJson& j, T& out) {
  if constexpr (std::is_same_v<T, BoxedOptional<std::string>>) {
    std::string_view s;
    if (!j.String(s)) return false;
    out = j.interner().SharedString(s);
    return true;
  } else if constexpr (IsOptional<T>::value) {
    return FastDecode(j, out.emplace());
  } else if constexpr (std::is_same_v<T, std::vector<bool>>) {
    if (!j.BeginArray()) return false;
    out.clear();
    for (;;) {
      bool done = false;
      if (!j.NextElement(done)) return false;
      if (done) return true;
      bool b = false;
      if (j.Peek() == 'n') {
        if (!j.Null()) return false;
      } else if (!j.Bool(b)) {
        return false;
      }
      out.push_back(b);
      j.MemberDone();
    }
  } else if constexpr (IsVector<T>::value) {
    return FastDecodeList(j, out);
  } else if constexpr (IsMap<T>::value) {
    return FastDecodeMap(j, out);
  } else if constexpr (IsStruct<T>::value) {
    if (!j.BeginObject()) return false;
    return FastDecodeMembers(j, out);
  } else {
    return FastDecodeScalar(j, out);
  }
}

}  // namespace draforge::api::internal

#endif  // DRAFORGE_API_INTERNAL_JSON_FAST_DECODE_H_
