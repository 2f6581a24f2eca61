#include <gtest/gtest.h>

#include "core/durations.h"
#include "core/errors.h"

using namespace accelbench;

TEST(Durations, ParsesUnits) {
  EXPECT_DOUBLE_EQ(parse_duration_seconds("90"), 90);
  EXPECT_DOUBLE_EQ(parse_duration_seconds("90s"), 90);
  EXPECT_DOUBLE_EQ(parse_duration_seconds("4m"), 240);
  EXPECT_DOUBLE_EQ(parse_duration_seconds("1h30m"), 5400);
  EXPECT_DOUBLE_EQ(parse_duration_seconds("250ms"), 0.25);
  EXPECT_DOUBLE_EQ(parse_duration_seconds("2.5"), 2.5);
  EXPECT_DOUBLE_EQ(parse_duration_seconds(" 1m30s "), 90);
}

TEST(Durations, RejectsBadInput) {
  EXPECT_THROW(parse_duration_seconds(""), UsageError);
  EXPECT_THROW(parse_duration_seconds("-5"), UsageError);
  EXPECT_THROW(parse_duration_seconds("5 parsecs"), UsageError);
  EXPECT_THROW(parse_duration_seconds("abc"), UsageError);
  EXPECT_THROW(parse_duration_seconds("1m30"), UsageError);
  try {
    parse_duration_seconds("-5");
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("negative"), std::string::npos);
  }
}

TEST(Durations, Formats) {
  EXPECT_EQ(format_seconds_short(0.0005), "500.0 us");
  EXPECT_EQ(format_seconds_short(0.0123), "12.30 ms");
  EXPECT_EQ(format_seconds_short(3.21), "3.210 s");
  EXPECT_EQ(format_duration(185), "3m 05s");
  EXPECT_EQ(format_bytes(1536), "1.50 KiB");
  EXPECT_EQ(format_count(12345), "12.3k");
}
