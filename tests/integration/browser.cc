#include "tests/integration/browser.h"

#include <doctest/doctest.h>

#include <vector>

#include "common/fs.h"
#include "host/util/subprocess.h"

namespace ktune::test {

std::optional<BrowserView> ViewInChromium(const std::string& html_path,
                                          const std::string& scratch_dir) {
  const std::string chromium = FindInPath("chromium");
  if (chromium.empty()) return std::nullopt;
  const std::vector<std::string> flags = {"--headless",
                                          "--no-sandbox",
                                          "--disable-gpu",
                                          "--disable-quic",
                                          "--no-first-run",
                                          "--disable-background-networking",
                                          "--disable-sync",
                                          "--disable-component-update",
                                          "--user-data-dir=" + scratch_dir + "/chromium"};
  BrowserView view;
  std::vector<std::string> dump = {chromium};
  dump.insert(dump.end(), flags.begin(), flags.end());
  dump.insert(dump.end(), {"--dump-dom", "file://" + html_path});
  host::ToolOptions options;
  options.timeout_seconds = 120;
  options.stdout_path = scratch_dir + "/dom.html";
  auto dumped = host::RunTool(dump, options);
  REQUIRE(dumped.ok());
  CHECK(dumped->exit_code == 0);
  Result<std::string> dom = ReadFile(scratch_dir + "/dom.html");
  view.dom = dom.ok() ? *dom : "";
  view.screenshot = scratch_dir + "/page.png";
  std::vector<std::string> shot = {chromium};
  shot.insert(shot.end(), flags.begin(), flags.end());
  shot.insert(shot.end(), {"--window-size=1200,3000", "--screenshot=" + view.screenshot,
                           "file://" + html_path});
  host::ToolOptions shot_options;
  shot_options.timeout_seconds = 120;
  auto shot_run = host::RunTool(shot, shot_options);
  REQUIRE(shot_run.ok());
  CHECK(shot_run->exit_code == 0);
  view.console = shot_run->output;
  return view;
}

}  // namespace ktune::test
