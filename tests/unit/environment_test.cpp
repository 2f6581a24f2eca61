// Reading the environment one way (core/environment.h).
#include <gtest/gtest.h>

#include <cstdlib>

#include "core/environment.h"

namespace accelbench {
namespace {

constexpr const char* kName = "ACCELBENCH_ENVIRONMENT_TEST";

TEST(Environment, SwitchesStringsAndIntegers) {
  ::unsetenv(kName);
  EXPECT_EQ(env_string(kName), "");
  EXPECT_TRUE(env_switch(kName, true));
  EXPECT_FALSE(env_switch(kName, false));
  EXPECT_FALSE(env_integer(kName).value);
  EXPECT_TRUE(env_integer(kName).valid);
  ::setenv(kName, "", 1);
  EXPECT_TRUE(env_switch(kName, true));  // empty: the default
  EXPECT_FALSE(env_integer(kName).value);
  ::setenv(kName, "0", 1);
  EXPECT_FALSE(env_switch(kName, true));
  EXPECT_EQ(env_integer(kName).value, 0);
  ::setenv(kName, "1", 1);
  EXPECT_TRUE(env_switch(kName, false));
  ::setenv(kName, "-42", 1);
  EXPECT_EQ(env_integer(kName).value, -42);
  EXPECT_EQ(env_string(kName), "-42");
  for (const char* bad : {"4x", "x", "1.5", "99999999999999999999999"}) {
    ::setenv(kName, bad, 1);
    EXPECT_FALSE(env_integer(kName).valid) << bad;
    EXPECT_FALSE(env_integer(kName).value) << bad;
  }
  ::unsetenv(kName);
}

}  // namespace
}  // namespace accelbench
