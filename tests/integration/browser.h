// Headless Chromium for the HTML report tests: the page's DOM as the browser builds it, and a
// screenshot. Debian's chromium; a test without it says it skipped the browser check.
#pragma once

#include <optional>
#include <string>

namespace ktune::test {

struct BrowserView {
  std::string dom;         // --dump-dom of the page
  std::string screenshot;  // the page rendered to a PNG file (its path)
  std::string console;     // what Chromium printed while rendering
};

// Loads `html_path` in headless Chromium with a profile under `scratch_dir`; nullopt when
// chromium is not installed. A failed run of the browser fails the calling test (doctest).
std::optional<BrowserView> ViewInChromium(const std::string& html_path,
                                          const std::string& scratch_dir);

}  // namespace ktune::test
