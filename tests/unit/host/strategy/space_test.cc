#include "host/strategy/space.h"

#include <doctest/doctest.h>

#include <algorithm>

namespace ktune::host {
namespace {

// A 3 x 3 grid (A in 1 2 4, B in 10 20 30) without (2, 20), its centre.
SearchSpace Holed() {
  std::vector<std::vector<int64_t>> configs;
  for (int64_t a : {1, 2, 4}) {
    for (int64_t b : {10, 20, 30}) {
      if (!(a == 2 && b == 20)) configs.push_back({a, b});
    }
  }
  return SearchSpace::Make({"A", "B"}, {{1, 2, 4}, {10, 20, 30}}, configs).value();
}

std::vector<std::vector<int64_t>> Configs(const SearchSpace& s, const std::vector<size_t>& pts) {
  std::vector<std::vector<int64_t>> out;
  for (size_t p : pts) out.push_back(s.config(p));
  std::sort(out.begin(), out.end());
  return out;
}

TEST_CASE("search space: points, lookups and coordinates") {
  const SearchSpace s = Holed();
  CHECK(s.size() == 8);
  CHECK(s.dimensions() == 2);
  CHECK(s.config(0) == std::vector<int64_t>{1, 10});
  CHECK(s.point(4) == Point{1, 2});  // (2, 30): the centre is not a point
  CHECK(s.Find(Point{1, 2}) == 4);
  CHECK(s.Find(Point{1, 1}) == s.size());  // infeasible
  CHECK(s.Find(Point{3, 0}) == s.size());  // out of range
  CHECK(s.Find(Point{0}) == s.size());     // wrong size
  CHECK(s.FindConfig({2, 30}) == 4);
  CHECK(s.FindConfig({2, 20}) == s.size());  // infeasible
  CHECK(s.FindConfig({3, 10}) == s.size());  // not a candidate value
  CHECK(s.FindConfig({1}) == s.size());      // wrong size
  CHECK(s.Coordinates(4) == std::vector<double>{0.5, 2.5 / 3});
}

TEST_CASE("search space: Hamming and strictly adjacent neighbours skip infeasible points") {
  const SearchSpace s = Holed();
  const size_t corner = s.Find(Point{0, 0});  // (1, 10)
  CHECK(Configs(s, s.HammingNeighbours(corner)) ==
        std::vector<std::vector<int64_t>>{{1, 20}, {1, 30}, {2, 10}, {4, 10}});
  // Strictly adjacent: (1, 20), (2, 10); (2, 20) is the hole.
  CHECK(Configs(s, s.AdjacentNeighbours(corner)) ==
        std::vector<std::vector<int64_t>>{{1, 20}, {2, 10}});
  const size_t edge = s.Find(Point{1, 0});  // (2, 10): up to 5 around it, less the hole
  CHECK(Configs(s, s.AdjacentNeighbours(edge)) ==
        std::vector<std::vector<int64_t>>{{1, 10}, {1, 20}, {4, 10}, {4, 20}});
}

TEST_CASE("search space: bad input is refused") {
  CHECK_FALSE(SearchSpace::Make({}, {}, {{}}).ok());
  CHECK_FALSE(SearchSpace::Make({"A"}, {{1, 2}}, {}).ok());
  CHECK_FALSE(SearchSpace::Make({"A"}, {{}}, {{1}}).ok());
  auto not_candidate = SearchSpace::Make({"A"}, {{1, 2}}, {{3}});
  REQUIRE_FALSE(not_candidate.ok());
  CHECK(not_candidate.status().message() == "A = 3 is not one of its candidate values");
  CHECK_FALSE(SearchSpace::Make({"A"}, {{1, 2}}, {{1}, {1}}).ok());
  CHECK_FALSE(SearchSpace::Make({"A", "B"}, {{1}, {2}}, {{1}}).ok());
}

}  // namespace
}  // namespace ktune::host
