// The tests' one substring check: whether `haystack` holds `needle` (std::string::contains is
// C++23).
#pragma once

#include <string_view>

namespace ktune::test {

inline bool Contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

}  // namespace ktune::test
