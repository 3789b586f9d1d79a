#include "host/lava/lava_boards.h"

#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fcntl.h>

#include <cctype>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>

#include "common/fs.h"
#include "common/strings.h"
#include "host/lava/job_template.h"
#include "host/lava/lava_api.h"
#include "host/remote/agent_client.h"
#include "protocol/session_crypto.h"

namespace ktune::host {
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kPoll = std::chrono::seconds(1);
constexpr auto kConnectTimeout = std::chrono::seconds(10);

// The jobs this khost holds, cancelled when it is interrupted: a signal handler wakes a thread
// through a pipe, the thread cancels them (HTTP is not for signal handlers), then the signal is
// raised again with its default action.
class LiveJobs {
 public:
  static LiveJobs& Get() {
    static LiveJobs* jobs = new LiveJobs();  // lives until the process ends, as the thread does
    return *jobs;
  }
  void Add(const LavaApi& api, int64_t id) {
    std::call_once(watching_, [this] { Watch(); });
    std::lock_guard lock(mu_);
    jobs_.emplace(id, api);
  }
  void Remove(int64_t id) {
    std::lock_guard lock(mu_);
    jobs_.erase(id);
  }

 private:
  static inline int pipe_[2] = {-1, -1};

  static void OnSignal(int sig) {
    const unsigned char b = static_cast<unsigned char>(sig);
    [[maybe_unused]] const ssize_t n = ::write(pipe_[1], &b, 1);
  }

  void Watch() {
    if (::pipe2(pipe_, O_CLOEXEC) != 0) return;
    std::thread([this] {
      unsigned char sig = 0;
      while (::read(pipe_[0], &sig, 1) != 1) {
      }
      std::map<int64_t, LavaApi> jobs;
      {
        std::lock_guard lock(mu_);
        jobs = jobs_;
      }
      for (const auto& [id, api] : jobs) {
        const Status s = api.Cancel(id);
        const std::string line =
            "khost: interrupted: " +
            (s.ok() ? "cancelled LAVA job " + std::to_string(id) + "\n" : s.message() + "\n");
        [[maybe_unused]] const ssize_t n = ::write(2, line.data(), line.size());
      }
      ::signal(sig, SIG_DFL);
      ::raise(sig);
    }).detach();
    struct sigaction sa {};
    sa.sa_handler = OnSignal;
    sigemptyset(&sa.sa_mask);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &sa, nullptr);
  }

  std::once_flag watching_;
  std::mutex mu_;
  std::map<int64_t, LavaApi> jobs_;
};

// Cancels job `id` (one already finished is cancelled as well: LAVA says so) and forgets it.
void GiveBack(const LavaApi& api, int64_t id) {
  (void)api.Cancel(id);
  LiveJobs::Get().Remove(id);
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// A board's job: cancelled when the session that holds it ends.
class LavaLease : public Lease {
 public:
  LavaLease(LavaApi api, int64_t id) : api_(std::move(api)), id_(id) {}
  ~LavaLease() override { GiveBack(api_, id_); }
  std::string Now() const override {
    auto job = api_.Job(id_);
    const std::string what = "its LAVA job " + std::to_string(id_);
    if (!job.ok()) return what + ": " + job.status().message();
    if (job->state == "Canceling") return what + " is being cancelled";
    if (!job->finished()) return what + " is still " + Lower(job->state);
    if (job->health == "Canceled") return what + " was cancelled";
    return what + " ended (" + job->health + ")" +
           (job->failure_comment.empty() ? "" : ": " + job->failure_comment);
  }

 private:
  LavaApi api_;
  int64_t id_;
};

// A free TCP port of this host's loopback, for {{KTUNE_PORT}}.
Result<uint16_t> FreePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return ErrnoError("socket", errno);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
                  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0;
  const int err = errno;
  ::close(fd);
  if (!ok) return ErrnoError("binding a free loopback port", err);
  return ntohs(a.sin_port);
}

// One board's job, from its submission until agentd answers or the job is given up.
struct Board {
  int64_t id = 0;
  std::string token;
  std::optional<HostPort> address;  // the template's "# ktune-address:", else the console's
  std::string state, device, last_console, last_error;
  size_t queued_before = SIZE_MAX;
  size_t log_next = 0;
  bool listening = false;  // the console said agentd listens
  Clock::time_point deadline;
  bool done = false;
  std::string failed;  // why, when it is given up
  std::optional<AgentSession> session;
};

// Reads the job's new log lines: the last console and error lines, and agentd's address.
Status ReadConsole(const LavaApi& api, Board& b) {
  size_t next = b.log_next;
  KT_ASSIGN_OR_RETURN(const std::vector<LavaLogLine> lines, api.Log(b.id, b.log_next, &next));
  b.log_next = next;
  for (const LavaLogLine& l : lines) {
    const std::string_view msg = Trim(l.message);
    if (l.level == "error" || l.level == "exception") b.last_error = std::string(msg);
    if (l.level != "target" || msg.empty()) continue;
    b.last_console = EscapedText(std::string(msg.substr(0, 200)));
    if (const std::optional<HostPort> at = AgentdListening(msg)) {
      if (!b.address) b.address = at;
      b.listening = true;
    }
  }
  return Status::Ok();
}

// Why a job that ended before its agentd answered ended.
std::string EndedWhy(const LavaJob& job, const Board& b) {
  std::string why = "job " + std::to_string(b.id) + " ended (" + job.health + ")";
  if (job.health == "Canceled") why = "job " + std::to_string(b.id) + " was cancelled";
  if (!job.failure_comment.empty()) why += ": " + job.failure_comment;
  if (!b.last_error.empty()) why += "; LAVA: " + b.last_error;
  if (!b.last_console.empty()) why += "; the board's console last said: " + b.last_console;
  return why + " before agentd answered";
}

// One step of following board `b`: its job's state, its console, a connection once agentd
// listens.
void Follow(const RegisteredAgent& agent, const LavaApi& api, Board& b, std::ostream& say) {
  const std::string who = agent.name + ": job " + std::to_string(b.id);
  auto job = api.Job(b.id);
  if (!job.ok()) {
    b.done = true;
    b.failed = job.status().message();
    return;
  }
  if (job->state != b.state) {
    b.state = job->state;
    say << who << " " << Lower(job->state) << (job->device.empty() ? "" : " on " + job->device)
        << "\n";
  }
  if (job->state == "Submitted") {
    auto before = api.QueuedBefore(b.id, agent.lava->device_type);
    if (before.ok() && *before != b.queued_before) {
      b.queued_before = *before;
      say << who << " queued: " << *before << " job" << (*before == 1 ? "" : "s")
          << " before it for " << agent.lava->device_type << "\n";
    }
  }
  if (job->state == "Running" || job->finished()) {
    if (const Status s = ReadConsole(api, b); !s.ok()) say << who << ": " << s.message() << "\n";
  }
  if (job->finished() && !b.session) {
    b.done = true;
    b.failed = EndedWhy(*job, b);
    return;
  }
  if (!b.address || !b.listening) return;  // agentd said it listens: connect
  auto token = Token::FromText(b.token);
  if (!token.ok()) {
    b.done = true;
    b.failed = token.status().message();
    return;
  }
  auto conn = AgentConnection::Connect(*b.address, *token, kConnectTimeout);
  if (!conn.ok()) return;  // not yet: tried again next time, until the deadline
  say << who << ": agentd answers at " << b.address->ToString() << "\n";
  AgentSession s;
  s.name = agent.name + "/" + std::to_string(b.id);
  s.lease = std::make_unique<LavaLease>(api, b.id);
  s.conn = std::move(*conn);
  b.session = std::move(s);
  b.done = true;
}

// Submits board `index`'s job.
Result<Board> Submit(const RegisteredAgent& agent, const LavaApi& api, const std::string& text,
                     size_t index) {
  const LavaSource& lava = *agent.lava;
  Board b;
  b.token = Trim(Token::NewText());
  KT_ASSIGN_OR_RETURN(const uint16_t port, FreePort());
  KT_ASSIGN_OR_RETURN(
      const std::string job,
      FillJobTemplate(text,
                      {.token = b.token,
                       .port = port,
                       .job_name = "ktune " + agent.name + " board " + std::to_string(index + 1) +
                                   " of " + std::to_string(lava.boards),
                       .job_minutes = lava.job_minutes,
                       .device_type = lava.device_type},
                      lava.job_template));
  KT_ASSIGN_OR_RETURN(b.address, JobAgentAddress(job, lava.job_template));
  KT_ASSIGN_OR_RETURN(b.id, api.Submit(job));
  LiveJobs::Get().Add(api, b.id);
  b.deadline = Clock::now() + std::chrono::minutes(lava.job_minutes);
  return b;
}

}  // namespace

Result<std::vector<AgentSession>> ReserveLavaBoards(const RegisteredAgent& agent,
                                                    std::ostream& say) {
  if (!agent.lava) return InternalError("agent " + agent.name + " is not a LAVA lab's");
  const LavaSource& lava = *agent.lava;
  std::string api_token;
  if (!agent.token_file.empty()) {
    KT_ASSIGN_OR_RETURN(const std::string t, ReadFile(agent.token_file));
    api_token = std::string(Trim(t));
  }
  KT_ASSIGN_OR_RETURN(const std::string text, ReadFile(lava.job_template));
  const LavaApi api(lava.url, api_token);
  std::vector<Board> boards;
  for (size_t i = 0; i < lava.boards; ++i) {
    auto b = Submit(agent, api, text, i);
    if (!b.ok()) {
      for (const Board& done : boards) {
        GiveBack(api, done.id);
      }
      return b.status().WithContext("agent " + agent.name);
    }
    say << agent.name << ": submitted job " << b->id << " to " << lava.url << " ("
        << lava.device_type << ", board " << i + 1 << " of " << lava.boards << ")\n";
    boards.push_back(std::move(*b));
  }
  while (true) {
    bool waiting = false;
    for (Board& b : boards) {
      if (b.done) continue;
      Follow(agent, api, b, say);
      if (!b.done && Clock::now() > b.deadline) {
        b.done = true;
        b.failed = "job " + std::to_string(b.id) + " was still " + Lower(b.state) + " when its " +
                   std::to_string(lava.job_minutes) + " minutes were up";
      }
      if (!b.done) waiting = true;
    }
    if (!waiting) break;
    std::this_thread::sleep_for(kPoll);
  }
  std::vector<AgentSession> sessions;
  std::vector<std::string> failed;
  for (Board& b : boards) {
    if (b.session) {
      sessions.push_back(std::move(*b.session));
      continue;
    }
    GiveBack(api, b.id);
    say << agent.name << ": left out: " << b.failed << "\n";
    failed.push_back(b.failed);
  }
  if (sessions.empty()) {
    return Unavailable("agent " + agent.name + ": no board came up (" + Join(failed, "; ") + ")");
  }
  return sessions;
}

std::optional<std::string> LavaAgentOf(const std::string& board_name) {
  const size_t slash = board_name.rfind('/');
  if (slash == std::string::npos || slash == 0) return std::nullopt;
  if (!ParseInt64(board_name.substr(slash + 1)).ok()) return std::nullopt;
  return board_name.substr(0, slash);
}

}  // namespace ktune::host
