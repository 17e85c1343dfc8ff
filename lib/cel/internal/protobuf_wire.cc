#include "cel/internal/protobuf_wire.h"

#include <cstdio>

#include "cel/internal/utf8.h"

namespace draforge::cel::internal {

bool WireReader::ReadVarint(uint64_t* v) {
  uint64_t out = 0;
  for (int i = 0; i < 10; ++i) {
    if (pos_ >= data_.size()) return ok_ = false;
    const uint8_t b = static_cast<uint8_t>(data_[pos_++]);
    // The tenth byte may only carry the top bit of 64 (protowire.ConsumeVarint).
    if (i == 9 && b > 1) return ok_ = false;
    out |= static_cast<uint64_t>(b & 0x7F) << (7 * i);
    if ((b & 0x80) == 0) {
      *v = out;
      return true;
    }
  }
  return ok_ = false;
}

bool WireReader::Next(WireField* f) {
  if (!ok_ || pos_ >= data_.size()) return false;
  uint64_t tag;
  if (!ReadVarint(&tag)) return false;
  const uint64_t number = tag >> 3;
  const uint64_t type = tag & 7;
  if (number == 0 || number > 0x1FFFFFFF) return ok_ = false;
  f->number = static_cast<int32_t>(number);
  f->type = static_cast<WireType>(type);
  switch (type) {
    case 0: return ReadVarint(&f->scalar);
    case 1:
    case 5: {
      const size_t n = type == 1 ? 8 : 4;
      if (data_.size() - pos_ < n) return ok_ = false;
      uint64_t v = 0;
      for (size_t i = 0; i < n; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(data_[pos_ + i])) << (8 * i);
      pos_ += n;
      f->scalar = v;
      return true;
    }
    case 2: {
      uint64_t len;
      if (!ReadVarint(&len)) return false;
      if (len > data_.size() - pos_) return ok_ = false;
      f->bytes = data_.substr(pos_, len);
      pos_ += len;
      return true;
    }
    case 3:
      if (!SkipGroup(f->number)) return false;
      return true;
    default:  // an end group without its start, or wire types 6 and 7
      return ok_ = false;
  }
}

bool WireReader::SkipGroup(int32_t number) {
  for (;;) {
    if (pos_ >= data_.size()) return ok_ = false;
    uint64_t tag;
    if (!ReadVarint(&tag)) return false;
    const uint64_t n = tag >> 3;
    const uint64_t type = tag & 7;
    if (n == 0 || n > 0x1FFFFFFF) return ok_ = false;
    uint64_t skip;
    switch (type) {
      case 0:
        if (!ReadVarint(&skip)) return false;
        break;
      case 1:
      case 5: {
        const size_t len = type == 1 ? 8 : 4;
        if (data_.size() - pos_ < len) return ok_ = false;
        pos_ += len;
        break;
      }
      case 2:
        if (!ReadVarint(&skip)) return false;
        if (skip > data_.size() - pos_) return ok_ = false;
        pos_ += skip;
        break;
      case 3:
        if (!SkipGroup(static_cast<int32_t>(n))) return false;
        break;
      case 4:
        if (static_cast<int32_t>(n) != number) return ok_ = false;
        return true;
      default: return ok_ = false;
    }
  }
}


std::string TextQuote(std::string_view s) {
  std::string out = "\"";
  char buf[16];
  for (size_t i = 0; i < s.size();) {
    auto [rune, n] = DecodeRune(s, i);
    uint32_t r = rune;
    if (n == 0) {
      r = static_cast<uint8_t>(s[i]);
      n = 1;
    }
    if (n == 1 && (r < 0x20 || r == '"' || r == '\\' || r >= 0x7F)) {
      switch (r) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
          std::snprintf(buf, sizeof buf, "\\x%02x", r);
          out += buf;
      }
    } else if (n > 1 && r <= 0x9F) {
      std::snprintf(buf, sizeof buf, "\\u%04x", r);
      out += buf;
    } else {
      out.append(s.substr(i, n));
    }
    i += n;
  }
  out += '"';
  return out;
}

}  // namespace draforge::cel::internal
