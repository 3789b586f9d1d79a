// khost tune --apply-best's edit of a kernel spec: the winner written into the spec's text as its
// "best:" line, everything else kept as it was (comments, order, line endings).
#pragma once

#include <string>
#include <string_view>

namespace ktune::host {

// The spec's text with `best_line` ("best: ...") and the comment above it in place of an
// earlier pair (a "best:" line, which keeps its trailing comment, and the line before it when
// that is a comment written by --apply-best), or appended; line endings as the file has them.
// WithoutBestLine drops the pair. Pure.
std::string WithBestLine(std::string_view spec_text, const std::string& comment,
                         const std::string& best_line);
std::string WithoutBestLine(std::string_view spec_text);

}  // namespace ktune::host
