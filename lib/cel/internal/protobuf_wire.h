// The protobuf binary wire format as Go's protobuf runtime reads it (enough to unpack a
// google.protobuf.Any holding a well-known message), and the text format's string quoting.
#ifndef DRAFORGE_CEL_INTERNAL_PROTOBUF_WIRE_H_
#define DRAFORGE_CEL_INTERNAL_PROTOBUF_WIRE_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace draforge::cel::internal {

enum class WireType : uint8_t { kVarint = 0, kFixed64 = 1, kBytes = 2, kStartGroup = 3, kEndGroup = 4, kFixed32 = 5 };

// One field of a message: its number, wire type and payload (varint/fixed value or the bytes).
struct WireField {
  int32_t number = 0;
  WireType type = WireType::kVarint;
  uint64_t scalar = 0;      // kVarint, kFixed64, kFixed32
  std::string_view bytes;   // kBytes
};

// Reads the fields of one serialized message in order. Next() returns false at the end, or on
// malformed input with ok() false (truncation, a varint over 10 bytes, field number 0 or above
// 2^29-1, wire types 6 and 7, unbalanced groups: what Go's proto.Unmarshal rejects). Groups are
// skipped whole, as unknown fields.
class WireReader {
 public:
  explicit WireReader(std::string_view data) : data_(data) {}
  bool Next(WireField* f);
  bool ok() const { return ok_; }

 private:
  bool ReadVarint(uint64_t* v);
  bool SkipGroup(int32_t number);
  std::string_view data_;
  size_t pos_ = 0;
  bool ok_ = true;
};

// The text format's quoted string ("..." with Go's prototext escapes: \n \r \t \" \\, \xHH for
// other control bytes, DEL and invalid UTF-8, \u00HH for U+0080..U+009F, other UTF-8 as is).
std::string TextQuote(std::string_view s);

}  // namespace draforge::cel::internal

#endif  // DRAFORGE_CEL_INTERNAL_PROTOBUF_WIRE_H_
