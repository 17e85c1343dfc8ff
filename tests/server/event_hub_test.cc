// EventHub: what an SSE client sees of store changes (ids, replay after reconnect, reset).
#include "event_hub.h"

#include <string>

#include "draforge/draforge.hpp"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace draforge::server {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

std::string Slice(const std::string& name, const std::string& device) {
  return "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: " + name +
         "}\nspec: {driver: d.example.com, nodeName: node-a, pool: {name: p, generation: 1, resourceSliceCount: 1}, "
         "devices: [{name: " +
         device + "}]}\n";
}

// A store the tests change (draforge::Cluster, the server's store).
struct Store {
  Cluster c = Cluster::Create().value();
  void Apply(const std::string& yaml) { ASSERT_TRUE(c.Apply(yaml).ok()); }
  Snapshot snapshot() const { return c.snapshot().value(); }
};

TEST(EventHubTest, ChangeEventsListAddedModifiedDeleted) {
  Store s;
  EventHub hub(10);
  s.Apply(Slice("a", "dev-x"));
  s.Apply(Slice("b", "dev-x"));
  hub.Publish(s.snapshot());
  const uint64_t before = hub.current_id();
  s.Apply(Slice("a", "dev-y"));
  ASSERT_TRUE(s.c.Delete("ResourceSlice", "", "b").ok());
  s.Apply(Slice("c", "dev-x"));
  hub.Publish(s.snapshot());
  CatchUp up = hub.Since(before);
  ASSERT_THAT(up.events, SizeIs(1));
  const std::string& diff = up.events[0].data;
  EXPECT_THAT(diff, HasSubstr(R"({"type":"MODIFIED","kind":"ResourceSlice","namespace":"","name":"a"})"));
  EXPECT_THAT(diff, HasSubstr(R"({"type":"DELETED","kind":"ResourceSlice","namespace":"","name":"b"})"));
  EXPECT_THAT(diff, HasSubstr(R"({"type":"ADDED","kind":"ResourceSlice","namespace":"","name":"c"})"));
  EXPECT_THAT(diff, HasSubstr(R"("previousGeneration":2)"));
}

TEST(EventHubTest, ReplaysMissedEventsInOrder) {
  Store c;
  EventHub hub(10);
  hub.Publish(c.snapshot());
  const uint64_t start = hub.current_id();
  c.Apply(Slice("a", "dev-x"));
  hub.Publish(c.snapshot());
  c.Apply(Slice("b", "dev-x"));
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
  Store c;
  EventHub hub(2);
  hub.Publish(c.snapshot());
  const uint64_t start = hub.current_id();
  for (int i = 0; i < 4; ++i) {
    c.Apply(Slice("s" + std::to_string(i), "dev-x"));
    hub.Publish(c.snapshot());
  }
  EXPECT_TRUE(hub.Since(start).reset);                   // evicted
  EXPECT_TRUE(hub.Since(hub.current_id() + 5).reset);    // from the future (another server run)
  EXPECT_FALSE(hub.Since(hub.current_id() - 1).reset);   // still kept
  EXPECT_EQ(hub.published(), 4u);
}

TEST(EventHubTest, NoEventWhenNothingAClientSeesChanged) {
  Store c;
  c.Apply(Slice("a", "dev-x"));
  EventHub hub(4);
  hub.Publish(c.snapshot());
  hub.Publish(c.snapshot());  // same generation
  c.Apply(Slice("a", "dev-x"));  // identical: the store publishes nothing
  hub.Publish(c.snapshot());
  EXPECT_EQ(hub.published(), 0u);
  EXPECT_TRUE(hub.Since(hub.current_id()).events.empty());
}

TEST(EventHubTest, CurrentRefIsASnapshotRefEvenBeforeTheFirstSnapshot) {
  // A client connecting before the store has synced gets `hello` with this as data; openapi.json's
  // SnapshotRef requires both fields.
  EventHub hub(4);
  EXPECT_FALSE(hub.started());
  EXPECT_EQ(hub.CurrentRef(), R"({"generation":0,"resourceVersion":""})");
  Store c;
  c.Apply(Slice("a", "dev-x"));
  hub.Publish(c.snapshot());
  EXPECT_EQ(hub.CurrentRef(), R"({"generation":)" + std::to_string(hub.current_id()) + R"(,"resourceVersion":")" +
                                  c.snapshot().resource_version() + R"("})");
  EXPECT_NE(hub.current_id(), 0u);
}

}  // namespace
}  // namespace draforge::server
