// EventHub: what an SSE client sees of store changes (ids, replay after reconnect, reset).
#include "event_hub.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "api/codec.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "store/cluster.h"

namespace draforge::server {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

api::Object Slice(const std::string& name, const std::string& device) {
  auto decoded = api::DecodeStream(
      "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: " + name +
          "}\nspec: {driver: d.example.com, nodeName: node-a, pool: {name: p, generation: 1, resourceSliceCount: 1}, "
          "devices: [{name: " +
          device + "}]}\n",
      {});
  return *std::move((*decoded)[0].object);
}

TEST(DiffSnapshotsTest, ListsAddedModifiedDeleted) {
  store::Cluster c;
  ASSERT_TRUE(c.Apply(Slice("a", "dev-x")).ok());
  ASSERT_TRUE(c.Apply(Slice("b", "dev-x")).ok());
  auto before = c.snapshot();
  ASSERT_TRUE(c.Apply(Slice("a", "dev-y")).ok());
  ASSERT_TRUE(c.Delete(api::Kind::kResourceSlice, "", "b").ok());
  ASSERT_TRUE(c.Apply(Slice("c", "dev-x")).ok());
  const std::string diff = DiffSnapshots(*before, *c.snapshot());
  EXPECT_THAT(diff, HasSubstr(R"({"type":"MODIFIED","kind":"ResourceSlice","namespace":"","name":"a"})"));
  EXPECT_THAT(diff, HasSubstr(R"({"type":"DELETED","kind":"ResourceSlice","namespace":"","name":"b"})"));
  EXPECT_THAT(diff, HasSubstr(R"({"type":"ADDED","kind":"ResourceSlice","namespace":"","name":"c"})"));
  EXPECT_THAT(diff, HasSubstr(R"("previousGeneration":2)"));
  EXPECT_EQ(DiffSnapshots(*before, *before), "");
}

TEST(EventHubTest, ReplaysMissedEventsInOrder) {
  store::Cluster c;
  EventHub hub(10);
  hub.Publish(c.snapshot());
  const uint64_t start = hub.current_id();
  ASSERT_TRUE(c.Apply(Slice("a", "dev-x")).ok());
  hub.Publish(c.snapshot());
  ASSERT_TRUE(c.Apply(Slice("b", "dev-x")).ok());
  hub.Publish(c.snapshot());
  CatchUp up = hub.Since(start);
  EXPECT_FALSE(up.reset);
  ASSERT_THAT(up.events, SizeIs(2));
  EXPECT_LT(up.events[0].id, up.events[1].id);
  EXPECT_EQ(up.events[1].previous_id, up.events[0].id);
  EXPECT_THAT(up.events[0].data, HasSubstr(R"("name":"a")"));
  EXPECT_EQ(up.current_id, up.events[1].id);
  // From the middle: only the second.
  EXPECT_THAT(hub.Since(up.events[0].id).events, SizeIs(1));
  // Up to date: nothing, no reset.
  CatchUp none = hub.Since(up.current_id);
  EXPECT_FALSE(none.reset);
  EXPECT_THAT(none.events, IsEmpty());
}

TEST(EventHubTest, IdsOutsideTheRingGetReset) {
  store::Cluster c;
  EventHub hub(2);
  hub.Publish(c.snapshot());
  const uint64_t start = hub.current_id();
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(c.Apply(Slice("s" + std::to_string(i), "dev-x")).ok());
    hub.Publish(c.snapshot());
  }
  EXPECT_TRUE(hub.Since(start).reset);                   // evicted
  EXPECT_TRUE(hub.Since(hub.current_id() + 5).reset);    // from the future (another server run)
  EXPECT_FALSE(hub.Since(hub.current_id() - 1).reset);   // still kept
  EXPECT_EQ(hub.published(), 4u);
}

TEST(EventHubTest, NoEventWhenNothingAClientSeesChanged) {
  store::Cluster c;
  ASSERT_TRUE(c.Apply(Slice("a", "dev-x")).ok());
  EventHub hub(4);
  hub.Publish(c.snapshot());
  hub.Publish(c.snapshot());  // same generation
  api::Object same = Slice("a", "dev-x");
  ASSERT_TRUE(c.Apply(std::move(same)).ok());  // identical: the store publishes nothing
  hub.Publish(c.snapshot());
  EXPECT_EQ(hub.published(), 0u);
  EXPECT_FALSE(hub.WaitAfter(hub.current_id(), absl::Milliseconds(10)));
}

TEST(EventHubTest, CurrentRefIsASnapshotRefEvenBeforeTheFirstSnapshot) {
  // A client connecting before the store has synced gets `hello` with this as data; openapi.json's
  // SnapshotRef requires both fields.
  EventHub hub(4);
  EXPECT_FALSE(hub.started());
  EXPECT_EQ(hub.CurrentRef(), R"({"generation":0,"resourceVersion":""})");
  store::Cluster c;
  ASSERT_TRUE(c.Apply(Slice("a", "dev-x")).ok());
  hub.Publish(c.snapshot());
  EXPECT_EQ(hub.CurrentRef(), absl::StrCat(R"({"generation":)", hub.current_id(), R"(,"resourceVersion":")",
                                           c.snapshot()->resource_version(), R"("})"));
  EXPECT_NE(hub.current_id(), 0u);
}

TEST(EventHubTest, CloseWakesWaiters) {
  store::Cluster c;
  EventHub hub(4);
  hub.Publish(c.snapshot());
  hub.Close();
  EXPECT_TRUE(hub.closed());
  EXPECT_FALSE(hub.WaitAfter(hub.current_id(), absl::Seconds(30)));  // returns at once
}

}  // namespace
}  // namespace draforge::server
