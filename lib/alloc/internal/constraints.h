// Claim constraints: matchAttribute and distinctAttribute (upstream constraint.go and the
// matchAttributeConstraint of the allocator), including list-type attributes (DRAListTypeAttributes).
#ifndef DRAFORGE_ALLOC_INTERNAL_CONSTRAINTS_H_
#define DRAFORGE_ALLOC_INTERNAL_CONSTRAINTS_H_

#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "api/resource_claim.h"
#include "api/resource_slice.h"

namespace draforge::alloc::internal {

// The typed values of an attribute as a set of strings "i:<int>", "b:<bool>", "s:<string>",
// "v:<version>" (sorted, unique). A list attribute gives its elements, a scalar one element.
// Empty for an attribute without a known value, an empty list (`ints: []`) included: with
// DRAListTypeAttributes, upstream's constraints treat both like a missing attribute.
std::vector<std::string> AttributeValueSet(const api::DeviceAttribute& attribute);
// The scalar typed value ("s:foo"), or "" for a list-only or empty attribute.
std::string AttributeScalar(const api::DeviceAttribute& attribute);

// Upstream lookupAttribute: the exact key, else the bare id when the domain is the driver.
const api::DeviceAttribute* LookupAttribute(const api::Device& device, std::string_view driver,
                                            std::string_view fully_qualified_name);

// A constraint of one claim. Add and Remove are called in LIFO order by the search.
class Constraint {
 public:
  virtual ~Constraint() = default;
  // Whether the constraint still holds with the device added (then it is recorded), reading the
  // device's own attribute.
  bool Add(std::string_view request, std::string_view sub_request, const api::Device& device,
           std::string_view driver) {
    return AddAttribute(request, sub_request,
                        AppliesTo(request, sub_request) ? LookupAttribute(device, driver, attribute_) : nullptr);
  }
  // The same with the attribute already looked up by the caller (null: the device has none): the
  // value a request sees may be a derived attribute (DRADerivedAttributes) shadowing the device's.
  // For a request the constraint does not apply to, `attribute` is ignored and the result is true.
  virtual bool AddAttribute(std::string_view request, std::string_view sub_request,
                            const api::DeviceAttribute* attribute) = 0;
  // Undoes the last successful Add for this request.
  virtual void Remove(std::string_view request, std::string_view sub_request) = 0;
  // Whether `a` and `b` (both of `driver`) look the same to this constraint whatever it has
  // recorded, so that one can replace the other in any search state. The search uses it to skip a
  // device whose interchangeable twin already failed. The default, false, is always safe: a new
  // kind of constraint gets no pruning until it says how it sees devices.
  virtual bool SameFor(const api::Device& a, const api::Device& b, std::string_view driver) const {
    (void)a;
    (void)b;
    (void)driver;
    return false;
  }
  // Whether the constraint applies to devices of this request ("req" or "req/sub" in `requests`,
  // or `requests` empty).
  bool AppliesTo(std::string_view request, std::string_view sub_request) const;
  const std::string& attribute() const { return attribute_; }

 protected:
  Constraint(std::vector<std::string> requests, std::string attribute, bool list_types)
      : requests_(std::move(requests)), attribute_(std::move(attribute)), list_types_(list_types) {}
  std::vector<std::string> requests_;
  std::string attribute_;
  bool list_types_;
};

// All devices must have the attribute with the same value (list types: a common element).
std::unique_ptr<Constraint> NewMatchAttribute(std::vector<std::string> requests, std::string attribute,
                                              bool list_types);
// Which devices a distinctAttribute constraint compares a new device with.
enum class DistinctAttributeMode {
  kEveryDevice,              // every device added so far (1.37)
  kLastOfRequest,            // the device last added for each request (1.35, 1.36)
  kLastOfRequestByIdentity,  // the same, by address: only the same device again clashes (1.34)
};

// All devices must have the attribute with pairwise different values (list types: disjoint sets),
// compared as `mode` says (Features::DistinctAttributeByIdentity, DistinctAttributeLastOfRequest).
std::unique_ptr<Constraint> NewDistinctAttribute(std::vector<std::string> requests, std::string attribute,
                                                 bool list_types,
                                                 DistinctAttributeMode mode = DistinctAttributeMode::kEveryDevice);

}  // namespace draforge::alloc::internal

#endif  // DRAFORGE_ALLOC_INTERNAL_CONSTRAINTS_H_
