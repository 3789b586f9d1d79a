// khost_docs DIR: writes what `cmake --install` installs beside khost and that khost's own
// command table generates: the man pages (DIR/man1/khost.1, khost-<command>.1) and the shell
// completions (DIR/completions/khost for bash, DIR/completions/_khost for zsh). Run by the
// build (host/cli/CMakeLists.txt), so that they follow the commands' options.
#include <iostream>

#include "common/fs.h"
#include "host/cli/cmd_completion.h"
#include "host/cli/command.h"

namespace {

ktune::Status WriteAll(const std::string& dir) {
  using namespace ktune;
  using namespace ktune::host;
  KT_RETURN_IF_ERROR(MakeDirs(dir + "/man1"));
  for (const auto& [name, text] : ManPages()) {
    KT_RETURN_IF_ERROR(WriteFileIfChanged(dir + "/man1/" + name, text));
  }
  KT_RETURN_IF_ERROR(MakeDirs(dir + "/completions"));
  KT_RETURN_IF_ERROR(WriteFileIfChanged(dir + "/completions/khost", CompletionScript({"bash"})));
  return WriteFileIfChanged(dir + "/completions/_khost", CompletionScript({"zsh"}));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: khost_docs DIR\n";
    return 2;
  }
  const ktune::Status s = WriteAll(argv[1]);
  if (s.ok()) return 0;
  std::cerr << "khost_docs: " << s.message() << "\n";
  return 1;
}
