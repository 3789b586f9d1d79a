// What the sessions of one AgentServer share: the machine, the store and its limits, the token,
// the runs measuring or queued, the bundles held, and the Measurer. Touched on the io thread only,
// but for the Measurer, which has a thread of its own.
#pragma once

#include <boost/asio/io_context.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "agent/server/measurer.h"
#include "agent/store/store.h"
#include "common/cpu.h"
#include "protocol/session_crypto.h"

namespace ktune::agent {

class Session;

// A run this agent is measuring or has queued, and the sessions its rows go to. Sessions come
// and go (khost killed, link dropped, a second khost resuming it); the run goes on.
struct RunState {
  std::vector<std::weak_ptr<Session>> watchers;
};

// The bundles runs and pushes hold, which eviction must leave, with how many hold each.
class Pins {
 public:
  void Add(const std::string& bundle) { ++counts_[bundle]; }
  void Drop(const std::string& bundle) {
    auto it = counts_.find(bundle);
    if (it != counts_.end() && --it->second == 0) counts_.erase(it);
  }
  std::set<std::string> held() const {
    std::set<std::string> out;
    for (const auto& [bundle, n] : counts_) out.insert(bundle);
    return out;
  }

 private:
  std::map<std::string, int> counts_;
};

// What a session may push (AgentOptions).
struct StoreLimits {
  uint64_t max_bundle_bytes = 0;
  uint64_t quota_bytes = 0;
};

struct ServerContext {
  ServerContext(boost::asio::io_context& io, Store store, CpuId cpu)
      : io(io), cpu(std::move(cpu)), store(std::move(store)) {}

  boost::asio::io_context& io;
  const CpuId cpu;          // detected once, at start
  std::string system_root;  // where /sys and /proc are: "" (AgentOptions::fake_system_root)
  Store store;
  StoreLimits limits;
  std::optional<Token> token;  // hosts must prove they hold it
  bool seal = false;           // and then the sessions are sealed
  // Runs measuring or queued, by id: a session resuming one joins it.
  std::map<std::string, std::shared_ptr<RunState>> runs;
  Pins pins;
  std::unique_ptr<Measurer> measurer;  // last: its thread stops before the rest goes
};

}  // namespace ktune::agent
