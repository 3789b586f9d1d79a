// khost's choice of the base each pushed blob is compressed against (ChooseDeltaBases).
#include <doctest/doctest.h>

#include "host/remote/agent_client.h"

namespace ktune::host {
namespace {

FileEntry File(const std::string& path, const std::string& hash, uint64_t size_bytes) {
  return {path, hash, size_bytes, 0644};
}

TEST_CASE("delta bases: a like file the agent holds or gets first, nearest in size") {
  Manifest m;
  m.kernel = "k";
  m.files = {File("k/run/bin/a.elf", "A", 900000),
             File("k/run/bin/b.elf", "B", 910000),
             File("k/run/bin/c.elf", "C", 700000),
             File("k/run/configs.json", "J", 20000),
             File("k/run/test_data/x.txt", "X", 500000),
             File("k/run/bin/tiny.elf", "T", 100),
             File("k/run/bin/huge.elf", "H", kMaxDeltaBaseBytes + 1)};
  SUBCASE("a first push: the first ELF goes alone, each later one against an earlier one") {
    const auto bases = ChooseDeltaBases(m, {"A", "B", "C", "J", "X", "T", "H"});
    CHECK(bases.count("A") == 0);
    CHECK(bases.at("B") == "A");
    CHECK(bases.at("C") == "A");   // of A and B, A is nearer in size
    CHECK(bases.count("J") == 0);  // no other .json
    CHECK(bases.count("X") == 0);  // no other .txt
    CHECK(bases.count("T") == 0);  // too small to gain
    CHECK(bases.count("H") == 0);  // too large to hold as a base
    CHECK(bases.size() == 2);
  }
  SUBCASE("a re-push after one variant changed: against what the agent holds") {
    const auto bases = ChooseDeltaBases(m, {"C"});
    CHECK(bases.at("C") == "A");  // A and B are held; A is nearer
    CHECK(ChooseDeltaBases(m, {"B"}).at("B") == "A");
    CHECK(ChooseDeltaBases(m, {"A"}).at("A") == "B");
  }
  SUBCASE("nothing missing, nothing to choose; a tie goes to the first in the manifest") {
    CHECK(ChooseDeltaBases(m, {}).empty());
    Manifest two;
    two.files = {File("k/run/bin/p.elf", "P", 10000), File("k/run/bin/q.elf", "Q", 10000),
                 File("k/run/bin/r.elf", "R", 10000)};
    CHECK(ChooseDeltaBases(two, {"R"}).at("R") == "P");
    CHECK(ChooseDeltaBases(two, {"Q", "R"}).at("R") == "P");
  }
  SUBCASE("a file without an extension matches only files without one") {
    Manifest plain;
    plain.files = {File("k/run/bin/kernel", "K", 10000), File("k/run/bin/k.elf", "E", 10000),
                   File("k/run/bin/other", "O", 10000)};
    CHECK(ChooseDeltaBases(plain, {"O"}).at("O") == "K");
    CHECK(ChooseDeltaBases(plain, {"E"}).empty());
  }
}

}  // namespace
}  // namespace ktune::host
