// The sentence of a request's funnel: what a user reads first ("request gpus: 4 devices match class
// gpu, 1 left after step \"allocated\" (3 allocated to claim team-a/train), 2 needed").
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "alloc/internal/funnel.h"
#include "common/status.h"

namespace draforge::alloc::internal {

std::string DevicesMatch(int64_t n) { return absl::StrCat(Devices(n), n == 1 ? " matches" : " match"); }

void Funnel::Sentence(size_t vi, Pending& p) const {
  const ReqView& v = views_[vi];
  RequestFunnel& f = p.f;
  const std::string on_node = node_ ? absl::StrCat(" that node ", node_->name, " reaches") : "";
  const int64_t matching = f.steps.size() > 1 ? f.steps[1].remaining : 0;
  if (p.klass == nullptr) {
    f.sentence = absl::StrCat("request ", v.name, ": device class ", v.class_name, " does not exist");
    return;
  }
  if (!f.first_short) {
    f.sentence = absl::StrCat("request ", v.name, ": ", Devices(p.cur.size()), " of class ", v.class_name,
                              p.cur.size() == 1 ? " is usable" : " are usable",
                              node_ ? absl::StrCat(" on node ", node_->name) : "");
    return;
  }
  const FunnelStep s = *f.first_short;
  const auto& st = *std::find_if(f.steps.begin(), f.steps.end(), [&](const FunnelCount& c) { return c.step == s; });
  const int64_t before = s == FunnelStep::kDriver ? 0 : (&st - 1)->remaining;
  const std::string head = absl::StrCat("request ", v.name, ": ");
  const std::string cel_error = f.first_error.empty() ? "" : absl::StrCat("; CEL error: ", f.first_error);
  switch (s) {
    case FunnelStep::kDriver:
    case FunnelStep::kClass:
      // The class step can leave some devices that are still too few for the count. Counted at the
      // class step even when the driver step already fell short: that step counts every device of
      // the drivers (all devices when no device matches the class).
      if (matching > 0) {
        f.sentence = absl::StrCat(head, "only ", DevicesMatch(matching), " class ", v.class_name, ", ", f.needed,
                                  " needed");
      } else {
        f.sentence = absl::StrCat(head, "no device matches class ", v.class_name,
                                  f.first_error.empty() ? "" : absl::StrCat(" (CEL error: ", f.first_error, ")"));
      }
      return;
    case FunnelStep::kAllocated:
      f.sentence = absl::StrCat(head, DevicesMatch(before), " class ", v.class_name, ", ",
                                st.remaining == 0 ? (before == 1 ? "it is" : absl::StrCat("all ", before, " are"))
                                                  : absl::StrCat(before - st.remaining, " are"),
                                st.detail.substr(st.detail.find(" allocated")));
      return;
    default:
      break;
  }
  if (all_required_[vi] == 0) {
    f.sentence = absl::StrCat(head, "allocationMode All finds no device of class ", v.class_name, on_node,
                              v.capacity != nullptr && features_.consumable_capacity
                                  ? " and that can hold the requested capacity"
                                  : "",
                              cel_error);
  } else if (all_required_[vi] > 0) {
    f.sentence = absl::StrCat(head, "allocationMode All takes all ", Devices(all_required_[vi]), " of class ",
                              v.class_name, on_node, ", step \"", AV(FunnelStepName(s)), "\" leaves ", all_left_[vi],
                              " of them (", st.detail, ")", cel_error);
  } else {
    f.sentence = absl::StrCat(head, DevicesMatch(matching), " class ", v.class_name, ", ", st.remaining,
                              " left after step \"", AV(FunnelStepName(s)), "\" (", st.detail, "), ", f.needed,
                              " needed", cel_error);
  }
}

}  // namespace draforge::alloc::internal
