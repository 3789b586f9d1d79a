#include "agent/measure/affinity.h"

#include <doctest/doctest.h>
#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <thread>

namespace ktune::agent {
namespace {

cpu_set_t MaskOf(pid_t tid) {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  REQUIRE(::sched_getaffinity(tid, sizeof mask, &mask) == 0);
  return mask;
}

// This process's threads, from /proc/self/task.
std::vector<pid_t> Tasks() {
  std::vector<pid_t> out;
  for (const auto& e : std::filesystem::directory_iterator("/proc/self/task")) {
    out.push_back(static_cast<pid_t>(std::atoi(e.path().filename().c_str())));
  }
  return out;
}

TEST_CASE("PinThread runs the thread on the measured CPU, then gives its mask back") {
  if (::sysconf(_SC_NPROCESSORS_ONLN) < 2) {
    MESSAGE("skipped: one CPU");
    return;
  }
  const cpu_set_t before = MaskOf(0);
  {
    const PinThread pin(1);
    CHECK(::sched_getcpu() == 1);  // sched_setaffinity moves the thread before it returns
    const cpu_set_t now = MaskOf(0);
    CHECK(CPU_COUNT(&now) == 1);
    CHECK(CPU_ISSET(1, &now));
  }
  const cpu_set_t after = MaskOf(0);
  CHECK(CPU_EQUAL(&after, &before));
  {
    const PinThread none(-1);  // not pinned: nothing changes
    const cpu_set_t now = MaskOf(0);
    CHECK(CPU_EQUAL(&now, &before));
  }
}

TEST_CASE("KeepThreadsOff takes the measured CPU from every thread, and from those they start") {
  if (::sysconf(_SC_NPROCESSORS_ONLN) < 2) {
    MESSAGE("skipped: one CPU");
    return;
  }
  std::atomic<bool> stop{false};
  std::thread other([&] {
    while (!stop) std::this_thread::yield();
  });
  const cpu_set_t before = MaskOf(0);
  {
    const KeepThreadsOff off(1);
    for (pid_t tid : Tasks()) {
      CAPTURE(tid);
      const cpu_set_t mask = MaskOf(tid);
      CHECK_FALSE(CPU_ISSET(1, &mask));
    }
    cpu_set_t started;
    std::thread([&] { started = MaskOf(0); }).join();
    CHECK_FALSE(CPU_ISSET(1, &started));
  }
  for (pid_t tid : Tasks()) {
    CAPTURE(tid);
    const cpu_set_t mask = MaskOf(tid);
    CHECK(CPU_EQUAL(&mask, &before));
  }
  stop = true;
  other.join();
}

TEST_CASE("KeepThreadsOff leaves a thread pinned to the CPU alone: it has nowhere else to run") {
  if (::sysconf(_SC_NPROCESSORS_ONLN) < 2) {
    MESSAGE("skipped: one CPU");
    return;
  }
  const PinThread pin(1);
  const KeepThreadsOff off(1);
  const cpu_set_t mask = MaskOf(0);
  CHECK(CPU_COUNT(&mask) == 1);
  CHECK(CPU_ISSET(1, &mask));
}

}  // namespace
}  // namespace ktune::agent
