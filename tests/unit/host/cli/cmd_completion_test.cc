#include <doctest/doctest.h>

#include "host/cli/cmd_completion.h"

namespace ktune::host {
namespace {

TEST_CASE("completion options") {
  CHECK(ParseCompletionArgs({"bash"})->shell == "bash");
  CHECK(ParseCompletionArgs({"zsh"})->shell == "zsh");
  CHECK(ParseCompletionArgs({"fish"}).status().message() == "unknown shell 'fish' (bash, zsh)");
  CHECK(ParseCompletionArgs({}).status().message() == "which shell? khost completion bash|zsh");
  CHECK_FALSE(ParseCompletionArgs({"bash", "zsh"}).ok());
  CHECK_FALSE(ParseCompletionArgs({"bash", "--root", "."}).ok());
}

}  // namespace
}  // namespace ktune::host
