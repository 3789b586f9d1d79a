#include "agent/server/agent_server.h"

#include <unistd.h>

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "agent/measure/measure.h"
#include "agent/measure/passes.h"
#include "agent/measure/sandbox.h"
#include "agent/server/log.h"
#include "agent/server/sysinfo.h"
#include "common/version.h"
#include "protocol/convert.h"
#include "protocol/frame_codec.h"

namespace ktune::agent {

namespace asio = boost::asio;
using asio::ip::tcp;

// Runs measurement jobs one at a time on its own thread.
class Measurer {
 public:
  struct Job {
    MeasurePlan plan;      // its passes are planned when the job starts, unless `planned`
    bool planned = false;  // a resumed run: plan.passes are the stored ones
    std::vector<EventSpec> events;
    std::string run_dir;
    std::string bundle_id;
    std::function<void(const PassPlan&)> on_planned;
    Journal::OnDurable on_row;
    std::function<void(const Status&)> on_done;
  };

  // `model` names this machine's CPU in the budget memory kept at `budgets_path`;
  // `fake_budget` > 0 replaces the PMU probe (for machines without a PMU, in tests).
  // `exec_wrapper` (may be empty) runs every variant (AgentOptions).
  // `sandbox` says as whom and within which limits kernels run (agent/measure/sandbox.h).
  static Result<std::unique_ptr<Measurer>> Create(std::string model, std::string budgets_path,
                                                  int fake_budget,
                                                  std::vector<std::string> exec_wrapper,
                                                  Sandbox sandbox) {
    KT_ASSIGN_OR_RETURN(Canceller c, Canceller::Create());
    return std::unique_ptr<Measurer>(new Measurer(std::move(c), std::move(model),
                                                  BudgetMemory(budgets_path), fake_budget,
                                                  std::move(exec_wrapper), std::move(sandbox)));
  }
  ~Measurer() { Stop(); }

  // Queues a job; returns how many are ahead of it (the one measuring included).
  size_t Enqueue(Job job) {
    std::lock_guard<std::mutex> lock(mu_);
    const size_t ahead = jobs_.size() + (busy_ ? 1 : 0);
    jobs_.push_back(std::move(job));
    cv_.notify_one();
    return ahead;
  }

  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) return;
      stopping_ = true;
    }
    canceller_.Cancel();
    cv_.notify_one();
    if (thread_.joinable()) thread_.join();
  }

  // What every variant runs under (AgentOptions::exec_wrapper), for the capabilities.
  const std::vector<std::string>& exec_wrapper() const { return exec_wrapper_; }

 private:
  Measurer(Canceller c, std::string model, BudgetMemory memory, int fake_budget,
           std::vector<std::string> exec_wrapper, Sandbox sandbox)
      : canceller_(std::move(c)),
        model_(std::move(model)),
        memory_(std::move(memory)),
        fake_budget_(fake_budget),
        exec_wrapper_(std::move(exec_wrapper)),
        sandbox_(std::move(sandbox)),
        thread_([this] { Loop(); }) {}

  void Loop() {
    for (;;) {
      Job job;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
        if (stopping_) return;
        job = std::move(jobs_.front());
        jobs_.pop_front();
        busy_ = true;
      }
      Log(LogLevel::kInfo, "run " + job.plan.run_id + ": " +
                               std::to_string(job.plan.variants.size()) + " variants" +
                               (job.planned ? ", resumed" : ""));
      if (!job.planned) {
        PassPlan planned;
        if (job.plan.multiplex) {
          planned.passes = {job.events};
          planned.how = "multiplexed";
        } else if (fake_budget_ > 0) {
          planned = PlanPassesWithFakeBudget(job.events, fake_budget_);
        } else {
          planned = PlanPasses(job.events, model_, memory_);
        }
        job.plan.passes = planned.passes;
        job.on_planned(planned);
      }
      job.plan.exec_wrapper = exec_wrapper_;
      Status s = Measure(job);
      Log(s.ok() ? LogLevel::kInfo : LogLevel::kError,
          "run " + job.plan.run_id + (s.ok() ? " done" : " failed: " + s.message()));
      job.on_done(s);
      std::lock_guard<std::mutex> lock(mu_);
      busy_ = false;
    }
  }

  Status Measure(Job& job) {
    KT_ASSIGN_OR_RETURN(std::unique_ptr<Journal> journal, Journal::Open(job.run_dir, job.on_row));
    for (const RepetitionRow& row : journal->rows_before()) job.plan.skip.insert(KeyOf(row));
    MeasurePlan& plan = job.plan;
    plan.limits = sandbox_.limits;
    plan.user = sandbox_.user;
    if (plan.user) KT_RETURN_IF_ERROR(CheckReachable(*plan.user, plan.tree_dir));
    KT_RETURN_IF_ERROR(MakeWorkDir(plan.work_dir, plan.tree_dir, plan.user));
    Status measured = MeasurePlanRows(plan, *journal, canceller_);
    RemoveTree(plan.work_dir);
    Status written = journal->Close();
    return written.ok() ? measured : written;
  }

  Canceller canceller_;
  const std::string model_;
  BudgetMemory memory_;  // used by the measurement thread only
  const int fake_budget_;
  const std::vector<std::string> exec_wrapper_;
  const Sandbox sandbox_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Job> jobs_;
  bool stopping_ = false;
  bool busy_ = false;   // a job is measuring
  std::thread thread_;  // last: starts after the members it uses exist
};

class Session;

// A run this agent is measuring or has queued, and the sessions its rows go to. Sessions come
// and go (khost killed, link dropped, a second khost resuming it); the run goes on. Touched on
// the io thread only.
struct RunState {
  std::vector<std::weak_ptr<Session>> watchers;
};
using RunRegistry = std::map<std::string, std::shared_ptr<RunState>>;

// The bundles runs and pushes hold, which eviction must leave (io thread only).
class Pins {
 public:
  explicit Pins(std::map<std::string, int>& counts) : counts_(counts) {}
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
  std::map<std::string, int>& counts_;
};

// What a session may push (AgentOptions).
struct StoreLimits {
  uint64_t max_bundle_bytes = 0;
  uint64_t quota_bytes = 0;
};

// The files of a run beside its journal (runs/<run_id>/): what was asked, how it was planned,
// and that it finished.
constexpr const char* kRequestFile = "request.pb";
constexpr const char* kAcceptedFile = "accepted.pb";
constexpr const char* kDoneFile = "done";

// One connection: Hello (and the token's proof), pushes, runs and fetches.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(asio::io_context& io, tcp::socket socket, const CpuId& cpu, Store& store,
          StoreLimits limits, Measurer& measurer, RunRegistry& runs, Pins pins,
          const std::optional<Token>& token, bool seal)
      : io_(io),
        socket_(std::move(socket)),
        cpu_(cpu),
        store_(store),
        limits_(limits),
        measurer_(measurer),
        runs_(runs),
        pins_(pins),
        token_(token),
        seal_(seal),
        delay_(io) {
    boost::system::error_code ec;
    auto remote = socket_.remote_endpoint(ec);
    peer_ = ec ? "?" : remote.address().to_string() + ":" + std::to_string(remote.port());
  }

  ~Session() {
    if (!pushing_.empty()) pins_.Drop(pushing_);
  }

  void Start() {
    Log(LogLevel::kInfo, "connection from " + peer_);
    ReadMore();
  }

 private:
  void ReadMore() {
    auto self = shared_from_this();
    socket_.async_read_some(asio::buffer(read_buf_),
                            [this, self](boost::system::error_code ec, size_t n) {
                              if (ec) {
                                Log(LogLevel::kInfo, "connection from " + peer_ + " closed");
                                return;
                              }
                              codec_.Feed(std::string_view(read_buf_.data(), n));
                              if (DrainFrames()) ReadMore();
                            });
  }

  // Handles every complete frame; false when the connection must close.
  bool DrainFrames() {
    for (;;) {
      auto next = codec_.Next();
      if (!next.ok()) {
        Log(LogLevel::kWarn, peer_ + ": " + next.status().message());
        SendThenClose(next.status());
        return false;
      }
      if (!next->has_value()) return true;
      Status s = Handle(**next);
      if (failed_auth_) return false;  // read nothing more: the refusal follows a delay
      if (!s.ok()) {
        if (s.code() == ErrorCode::kProtocol || s.code() == ErrorCode::kVersionMismatch) {
          Log(LogLevel::kWarn, peer_ + ": " + s.message());
          SendThenClose(s);
          return false;
        }
        Send(ErrorMessage(s));
      }
    }
  }

  Status Handle(const wire::Envelope& msg) {
    if (stage_ == Stage::kHello && msg.body_case() != wire::Envelope::kHello) {
      return ProtocolError("the first message must be Hello");
    }
    if (stage_ == Stage::kAuth && msg.body_case() != wire::Envelope::kAuthResponse) {
      return ProtocolError("this agent needs the token's proof (AuthResponse) first");
    }
    try {
      switch (msg.body_case()) {
        case wire::Envelope::kHello:
          if (stage_ != Stage::kHello) return ProtocolError("a second Hello");
          return OnHello(msg.hello());
        case wire::Envelope::kAuthResponse:
          if (stage_ != Stage::kAuth) return ProtocolError("unexpected AuthResponse");
          return OnAuthResponse(msg.auth_response());
        case wire::Envelope::kPushManifest:
          return OnManifest(msg.push_manifest());
        case wire::Envelope::kBlobChunk:
          return OnChunk(msg.blob_chunk());
        case wire::Envelope::kPushCommit:
          return OnCommit(msg.push_commit());
        case wire::Envelope::kRunRequest:
          return OnRun(msg.run_request());
        case wire::Envelope::kFetchRun:
          return OnFetch(msg.fetch_run());
        default:
          return ProtocolError("unexpected message from host");
      }
    } catch (const std::exception& e) {
      return InternalError(e.what());
    }
  }

  Status OnHello(const wire::Hello& hello) {
    if (hello.protocol_version() != kProtocolVersion) {
      return Status(ErrorCode::kVersionMismatch,
                    "khost speaks protocol " + std::to_string(hello.protocol_version()) +
                        ", agentd " KTUNE_VERSION " speaks protocol " +
                        std::to_string(kProtocolVersion) + "; use matching versions");
    }
    if (!token_) {
      SendHelloReply();
      return Status::Ok();
    }
    if (hello.host_nonce().size() != kNonceBytes) {
      return ProtocolError("Hello without a nonce: this agent needs a token (khost --token-file)");
    }
    host_nonce_ = hello.host_nonce();
    agent_nonce_ = NewNonce();
    stage_ = Stage::kAuth;
    wire::Envelope challenge;
    challenge.mutable_auth_challenge()->set_agent_nonce(agent_nonce_);
    challenge.mutable_auth_challenge()->set_sealed(seal_);
    Send(challenge);
    return Status::Ok();
  }

  Status OnAuthResponse(const wire::AuthResponse& response) {
    if (!MacMatches(response.mac(), AuthMac(*token_, "host", host_nonce_, agent_nonce_, seal_))) {
      // Logged, and answered only after a delay: guessing costs a second per try.
      Log(LogLevel::kWarn, "authentication failed from " + peer_ + ": wrong token");
      failed_auth_ = true;
      auto self = shared_from_this();
      delay_.expires_after(std::chrono::seconds(1));
      delay_.async_wait([this, self](boost::system::error_code) {
        SendThenClose(Unauthenticated("the token does not match: authentication failed"));
      });
      return Status::Ok();
    }
    wire::Envelope proof;
    proof.mutable_auth_proof()->set_mac(
        AuthMac(*token_, "agent", host_nonce_, agent_nonce_, seal_));
    Send(proof);  // encoded now, in the clear; everything after it is sealed when seal_
    if (seal_) {
      const SessionKeys keys = DeriveSessionKeys(*token_, host_nonce_, agent_nonce_);
      codec_.StartSealing(keys.agent_to_host, keys.host_to_agent);
    }
    Log(LogLevel::kInfo, peer_ + " authenticated" + (seal_ ? ", session sealed" : ""));
    SendHelloReply();
    return Status::Ok();
  }

  void SendHelloReply() {
    stage_ = Stage::kReady;
    wire::Envelope reply;
    auto* r = reply.mutable_hello_reply();
    r->set_protocol_version(kProtocolVersion);
    r->set_agent_version(KTUNE_VERSION);
    *r->mutable_capabilities() = ProbeCapabilities(cpu_);
    for (const std::string& w : measurer_.exec_wrapper()) {
      r->mutable_capabilities()->add_exec_wrapper(w);
    }
    Send(reply);
  }

  Status OnManifest(const wire::PushManifest& pm) {
    Manifest m = ManifestFromWire(pm);
    KT_RETURN_IF_ERROR(NormalizeManifest(m));
    // Limits first: nothing of a bundle that cannot fit is stored.
    uint64_t bundle_bytes = 0, incoming_bytes = 0;
    std::set<std::string> blobs;  // its own, which eviction must leave
    for (const FileEntry& f : m.files) {
      bundle_bytes += f.size_bytes;
      if (blobs.insert(f.hash).second && !store_.HasBlob(f.hash)) incoming_bytes += f.size_bytes;
    }
    if (bundle_bytes > limits_.max_bundle_bytes) {
      return ResourceExhausted("bundle " + m.kernel + " is " + std::to_string(bundle_bytes) +
                               " bytes; this agent takes at most " +
                               std::to_string(limits_.max_bundle_bytes) +
                               " (agentd --max-bundle-mb)");
    }
    const std::string id = BundleId(m);
    std::set<std::string> in_use = pins_.held();
    in_use.insert(id);
    std::vector<std::string> evicted;
    const Status room = store_.MakeRoom(incoming_bytes + bundle_bytes, limits_.quota_bytes, in_use,
                                        blobs, &evicted);
    for (const std::string& gone : evicted) {
      Log(LogLevel::kInfo, "store quota: evicted bundle " + gone.substr(0, 12));
    }
    KT_RETURN_IF_ERROR(room);
    KT_RETURN_IF_ERROR(store_.SaveManifest(m).status());
    store_.Touch(id);
    if (!pushing_.empty()) pins_.Drop(pushing_);
    pushing_ = id;
    pins_.Add(id);
    pending_.clear();
    push_blobs_.clear();
    for (const FileEntry& f : m.files) push_blobs_.emplace(f.hash, f.size_bytes);
    blob_.reset();
    push_failed_ = false;
    wire::Envelope reply;
    auto* need = reply.mutable_push_need();
    need->set_bundle_id(id);
    for (const FileEntry& f : m.files) {
      if (store_.HasBlob(f.hash)) continue;
      auto [it, inserted] = pending_.emplace(f.hash, f.size_bytes);
      if (!inserted && it->second != f.size_bytes) {
        return InvalidArgument("one hash with two sizes in manifest: " + f.hash);
      }
      if (inserted) need->add_missing_hashes(f.hash);
    }
    Log(LogLevel::kInfo, "push " + m.kernel + " (bundle " + id.substr(0, 12) +
                             "): " + std::to_string(m.files.size()) + " files, " +
                             std::to_string(pending_.size()) + " blobs missing");
    Send(reply);
    return Status::Ok();
  }

  Status OnChunk(const wire::BlobChunk& chunk) {
    // The rest of a push whose blob failed: its error went out with the first failing chunk,
    // and khost gives up on the push at that error. Writing the blobs behind it would only fill
    // the disk (and hold space) for nothing; the next manifest starts afresh.
    if (push_failed_) return Status::Ok();
    Status s = ReceiveChunk(chunk);
    if (!s.ok()) {
      blob_.reset();  // its partial file goes at once, never visible
      if (s.code() != ErrorCode::kProtocol) push_failed_ = true;
    }
    return s;
  }

  Status ReceiveChunk(const wire::BlobChunk& chunk) {
    auto it = pending_.find(chunk.hash());
    if (it == pending_.end()) return ProtocolError("blob chunk for a blob that was not requested");
    if (blob_ && blob_->writer.hash() != chunk.hash()) {
      return ProtocolError("blob chunk for a new blob before the last one ended");
    }
    if (!blob_) {
      KT_ASSIGN_OR_RETURN(std::string base, DeltaBase(chunk.base_hash()));
      auto w = store_.BeginBlob(chunk.hash(), it->second);
      if (!w.ok()) return w.status();
      blob_.emplace(IncomingBlob{std::move(w).value(), chunk.base_hash(), std::move(base)});
    } else if (chunk.base_hash() != blob_->base_hash) {
      return ProtocolError("chunks of one blob name different bases");
    }
    KT_ASSIGN_OR_RETURN(std::string raw,
                        DecompressChunk(chunk.data(), chunk.raw_size(), blob_->base));
    KT_RETURN_IF_ERROR(blob_->writer.Append(chunk.offset(), raw));
    if (!chunk.last()) return Status::Ok();
    KT_RETURN_IF_ERROR(blob_->writer.Finish());
    blob_.reset();
    pending_.erase(it);
    wire::Envelope reply;
    reply.mutable_blob_stored()->set_hash(chunk.hash());
    Send(reply);
    return Status::Ok();
  }

  // The content of the blob a chunk names as its base: one of the pushed bundle's own blobs,
  // stored already (so never one still pending), and small enough to hold in memory.
  Result<std::string> DeltaBase(const std::string& base_hash) {
    if (base_hash.empty()) return std::string();
    auto it = push_blobs_.find(base_hash);
    if (it == push_blobs_.end() || pending_.count(base_hash) || !store_.HasBlob(base_hash)) {
      return ProtocolError("blob chunk's base " + base_hash +
                           " is not a stored blob of the bundle being pushed");
    }
    if (it->second > kMaxDeltaBaseBytes) {
      return ProtocolError("blob chunk's base " + base_hash + " is over the base maximum");
    }
    return ReadFile(store_.BlobPath(base_hash));
  }

  Status OnCommit(const wire::PushCommit& commit) {
    KT_ASSIGN_OR_RETURN(std::string tree, store_.Materialize(commit.bundle_id()));
    (void)tree;
    if (!pushing_.empty()) pins_.Drop(pushing_);
    pushing_.clear();
    wire::Envelope reply;
    reply.mutable_push_done()->set_bundle_id(commit.bundle_id());
    Send(reply);
    return Status::Ok();
  }

  // The measurement a request asks for (everything but its passes), checked against the store
  // and this machine.
  Result<Measurer::Job> JobFor(const wire::RunRequest& req) {
    KT_RETURN_IF_ERROR(ValidateRunId(req.run_id()));
    KT_ASSIGN_OR_RETURN(Manifest manifest, store_.LoadManifest(req.bundle_id()));
    KT_ASSIGN_OR_RETURN(std::string tree, store_.Materialize(req.bundle_id()));
    if (req.repetitions() == 0) return InvalidArgument("repetitions must be at least 1");
    if (req.variants_size() == 0) return InvalidArgument("run request names no variant");
    const long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
    if (req.cpu() < -1 || req.cpu() >= cpus) {
      return InvalidArgument("cannot pin to CPU " + std::to_string(req.cpu()) +
                             ": this machine has " + std::to_string(cpus) + " CPUs (0-" +
                             std::to_string(cpus - 1) + ")");
    }
    Measurer::Job job;
    job.bundle_id = req.bundle_id();
    MeasurePlan& plan = job.plan;
    plan.run_id = req.run_id();
    plan.board = CpuFingerprint(cpu_);
    plan.tree_dir = tree;
    plan.repetitions = req.repetitions();
    plan.warmup = req.warmup();
    plan.timeout_ns = req.timeout_ms() * 1000000ull;
    plan.cpu = req.cpu();
    plan.multiplex = req.multiplex();
    KT_ASSIGN_OR_RETURN(const EventCatalog catalog, EventCatalog::ForCpu(cpu_, req.cpu_model()));
    for (const std::string& e : req.events()) {
      KT_ASSIGN_OR_RETURN(EventSpec spec, catalog.Parse(e));
      job.events.push_back(std::move(spec));
    }
    for (const std::string& e : req.record()) {
      KT_ASSIGN_OR_RETURN(EventSpec spec, catalog.Parse(e));
      plan.record.push_back(std::move(spec));
    }
    if (req.sample_period() && req.sample_freq()) {
      return InvalidArgument("a sample period or a sample frequency, not both");
    }
    plan.sampling.period = req.sample_period();
    plan.sampling.freq = req.sample_period() ? 0 : req.sample_freq() ? req.sample_freq() : 4001;
    plan.sampling.callchain = req.callchain();
    for (const wire::Variant& v : req.variants()) {
      KT_RETURN_IF_ERROR(ValidateBundlePath(v.elf_path()));
      const FileEntry* elf = nullptr;
      for (const FileEntry& f : manifest.files) {
        if (f.path == v.elf_path()) elf = &f;
      }
      if (!elf) {
        return NotFound("variant " + v.name() + ": " + v.elf_path() + " is not in the bundle");
      }
      for (const wire::Param& p : v.params()) {
        if (Status ok = ValidateParam(p.name(), p.value()); !ok.ok()) {
          return InvalidArgument("variant " + v.name() + ": " + ok.message());
        }
      }
      plan.variants.push_back({v.name(), v.elf_path(), elf->hash,
                               std::vector<std::string>(v.args().begin(), v.args().end()),
                               ParamsFromWire(v)});
    }
    KT_ASSIGN_OR_RETURN(job.run_dir, store_.RunDir(req.run_id()));
    plan.work_dir = store_.WorkDir(req.run_id());
    // The stored plan of a run that already started (being resumed): the same passes again.
    if (auto accepted = ReadFile(job.run_dir + "/" + kAcceptedFile); accepted.ok()) {
      wire::RunAccepted a;
      if (!a.ParseFromString(*accepted)) return ProtocolError("run " + req.run_id() + ": bad plan");
      plan.passes.clear();
      for (const wire::Pass& p : a.passes()) {
        std::vector<EventSpec> pass;
        for (const std::string& e : p.events()) {
          KT_ASSIGN_OR_RETURN(EventSpec spec, catalog.Parse(e));
          pass.push_back(std::move(spec));
        }
        plan.passes.push_back(std::move(pass));
      }
      job.planned = true;
    }
    return job;
  }

  Status OnRun(const wire::RunRequest& req) {
    if (run_active_) return InvalidArgument("a run is already active on this connection");
    KT_RETURN_IF_ERROR(ValidateRunId(req.run_id()));
    if (runs_.count(req.run_id()) ||
        ::access((store_.root() + "/runs/" + req.run_id() + "/" + kRequestFile).c_str(), F_OK) ==
            0) {
      return InvalidArgument("run " + req.run_id() + " exists on this agent (fetch or resume it)");
    }
    KT_ASSIGN_OR_RETURN(Measurer::Job job, JobFor(req));
    KT_RETURN_IF_ERROR(WriteFileAtomic(job.run_dir + "/" + kRequestFile, req.SerializeAsString()));
    fetched_request_.reset();
    Launch(std::move(job), 0);
    return Status::Ok();
  }

  // FetchRun: the rows of an earlier run as its journal holds them; with `resume`, then the rest:
  // from the run still measuring, or measured now when it stopped (its agent restarted).
  Status OnFetch(const wire::FetchRun& fetch) {
    if (run_active_) return InvalidArgument("a run is already active on this connection");
    KT_RETURN_IF_ERROR(ValidateRunId(fetch.run_id()));
    const std::string dir = store_.root() + "/runs/" + fetch.run_id();
    auto request_bytes = ReadFile(dir + "/" + kRequestFile);
    if (!request_bytes.ok()) return NotFound("no run " + fetch.run_id() + " on this agent");
    wire::RunRequest req;
    if (!req.ParseFromString(*request_bytes)) {
      return ProtocolError("run " + fetch.run_id() + ": its stored request does not parse");
    }
    std::vector<RepetitionRow> rows;
    if (auto journal = ReadFile(dir + "/results.csv"); journal.ok()) {
      KT_ASSIGN_OR_RETURN(ResultsFile file, ParseResultsCsv(*journal));  // a torn line is left out
      rows = std::move(file.rows);
    }
    const bool done = ::access((dir + "/" + kDoneFile).c_str(), F_OK) == 0;
    wire::RunAccepted accepted;
    const bool planned = [&] {
      auto a = ReadFile(dir + "/" + kAcceptedFile);
      return a.ok() && accepted.ParseFromString(*a);
    }();
    fetched_request_ = req;
    auto active = runs_.find(fetch.run_id());
    const bool measuring = active != runs_.end();
    if (!fetch.resume() || done) {
      if (!planned) {
        return NotFound("run " + fetch.run_id() + " has measured nothing yet" +
                        (measuring ? " (it is queued)" : ""));
      }
      Replay(accepted, rows, dir);
      wire::Envelope finished;
      finished.mutable_run_done()->set_run_id(fetch.run_id());
      finished.mutable_run_done()->set_rows(rows_sent_);
      finished.mutable_run_done()->set_complete(done);
      Send(finished);
      return Status::Ok();
    }
    if (!measuring) {  // it stopped: measure what is missing, after the stored rows
      KT_ASSIGN_OR_RETURN(Measurer::Job job, JobFor(req));
      if (planned) Replay(accepted, rows, dir);
      Launch(std::move(job), rows_sent_);
      return Status::Ok();
    }
    // Join the run measuring. A row made durable between reading the journal and joining comes
    // twice; khost keeps the first.
    active->second->watchers.push_back(weak_from_this());
    run_active_ = true;
    rows_sent_ = 0;
    if (planned) Replay(accepted, rows, dir);  // else RunAccepted follows when it is planned
    return Status::Ok();
  }

  // Sends the stored plan and rows (with their profiles) of the fetched run from its directory.
  void Replay(const wire::RunAccepted& accepted, const std::vector<RepetitionRow>& rows,
              const std::string& dir) {
    wire::Envelope a;
    *a.mutable_run_accepted() = accepted;
    a.mutable_run_accepted()->set_rows_stored(static_cast<uint32_t>(rows.size()));
    SendAccepted(std::move(a));
    std::map<RowKey, wire::Envelope> profiles;
    if (auto frames = ReadFile(dir + "/profiles.frames"); frames.ok()) {
      FrameCodec codec;
      codec.Feed(std::string_view(*frames).substr(0, WholeFramesBytes(*frames)));
      for (;;) {
        auto next = codec.Next();
        if (!next.ok() || !next->has_value()) break;
        const wire::SampleProfile& p = (*next)->sample_profile();
        profiles[{p.variant_index(), p.pass(), p.repetition()}] = std::move(**next);
      }
    }
    rows_sent_ = 0;
    for (const RepetitionRow& row : rows) {
      if (row.variant_index >= static_cast<uint32_t>(fetched_request_->variants_size())) continue;
      wire::Envelope env;
      RowToWire(row, env.mutable_repetition_result());
      Send(env);
      ++rows_sent_;
      if (auto p = profiles.find(KeyOf(row)); p != profiles.end()) Send(p->second);
    }
  }

  // A session that fetched the run also gets what the run was asked (it did not send it).
  void SendAccepted(wire::Envelope accepted) {
    if (fetched_request_) *accepted.mutable_run_accepted()->mutable_request() = *fetched_request_;
    Send(accepted);
  }

  // Queues `job` with this session watching it; `sent` rows of it went out already.
  void Launch(Measurer::Job job, size_t sent) {
    const std::string run_id = job.plan.run_id;
    auto state = std::make_shared<RunState>();
    state->watchers.push_back(weak_from_this());
    runs_[run_id] = state;
    run_active_ = true;
    rows_sent_ = static_cast<uint32_t>(sent);
    const std::string bundle = job.bundle_id;
    pins_.Add(bundle);  // not evicted while the run waits or measures
    store_.Touch(bundle);
    Pins pins = pins_;
    asio::io_context& io = io_;
    RunRegistry& runs = runs_;
    const std::string run_dir = job.run_dir;
    auto each = [state](const std::function<void(Session&)>& f) {
      for (const auto& w : state->watchers) {
        if (auto s = w.lock()) f(*s);
      }
    };
    job.on_planned = [each, &io, run_id, run_dir](const PassPlan& planned) {
      wire::Envelope accepted;
      auto* a = accepted.mutable_run_accepted();
      a->set_run_id(run_id);
      a->set_counter_budget(static_cast<uint32_t>(planned.budget));
      a->set_plan(planned.how);
      for (const Pass& pass : planned.passes) {
        auto* p = a->add_passes();
        for (const EventSpec& e : pass) p->add_events(e.text);
      }
      // Kept for a resume: the same passes again.
      const Status kept = WriteFileAtomic(run_dir + "/" + kAcceptedFile, a->SerializeAsString());
      if (!kept.ok()) Log(LogLevel::kError, "run " + run_id + ": " + kept.message());
      asio::post(io, [each, accepted = std::move(accepted)] {
        each([&](Session& s) { s.SendAccepted(accepted); });
      });
    };
    job.run_dir = run_dir;
    job.on_row = [each, &io](const RepetitionRow& row, const std::string& excerpt,
                             const Profile* profile) {
      wire::Envelope env;
      RowToWire(row, env.mutable_repetition_result());
      env.mutable_repetition_result()->set_output_excerpt(excerpt);
      std::optional<wire::Envelope> samples;
      if (profile) {
        samples.emplace();
        auto* p = samples->mutable_sample_profile();
        p->set_run_id(row.run_id);
        p->set_variant_index(row.variant_index);
        p->set_pass(row.pass);
        p->set_repetition(row.repetition);
        ProfileToWire(*profile, p);
      }
      asio::post(io, [each, env = std::move(env), samples = std::move(samples)] {
        each([&](Session& s) {
          s.Send(env);
          ++s.rows_sent_;
          if (samples) s.Send(*samples);
        });
      });
    };
    job.on_done = [each, &io, &runs, pins, bundle, run_id, run_dir](const Status& status) {
      if (status.ok()) {
        const Status marked = WriteFileAtomic(run_dir + "/" + kDoneFile, "");
        if (!marked.ok()) Log(LogLevel::kError, "run " + run_id + ": " + marked.message());
      }
      asio::post(io, [each, &runs, pins, bundle, status, run_id]() mutable {
        runs.erase(run_id);
        pins.Drop(bundle);
        each([&](Session& s) {
          s.run_active_ = false;
          if (!status.ok()) {
            s.Send(ErrorMessage(status));
            return;
          }
          wire::Envelope done;
          done.mutable_run_done()->set_run_id(run_id);
          done.mutable_run_done()->set_rows(s.rows_sent_);
          done.mutable_run_done()->set_complete(true);
          s.Send(done);
        });
      });
    };
    const size_t ahead = measurer_.Enqueue(std::move(job));
    if (ahead > 0) {
      Log(LogLevel::kInfo, "run " + run_id + " queued behind " + std::to_string(ahead));
      wire::Envelope queued;
      queued.mutable_run_queued()->set_run_id(run_id);
      queued.mutable_run_queued()->set_position(static_cast<uint32_t>(ahead));
      Send(queued);
    }
  }

  void Send(const wire::Envelope& msg) {
    auto frame = codec_.Encode(msg);
    if (!frame.ok()) {
      Log(LogLevel::kError, "cannot send: " + frame.status().message());
      return;
    }
    outbox_.push_back(std::move(frame).value());
    if (outbox_.size() == 1) WriteNext();
  }

  void SendThenClose(const Status& s) {
    close_after_send_ = true;
    Send(ErrorMessage(s));
  }

  void WriteNext() {
    auto self = shared_from_this();
    asio::async_write(socket_, asio::buffer(outbox_.front()),
                      [this, self](boost::system::error_code ec, size_t) {
                        if (ec) {
                          outbox_.clear();
                          return;
                        }
                        outbox_.pop_front();
                        if (!outbox_.empty()) {
                          WriteNext();
                        } else if (close_after_send_) {
                          boost::system::error_code ignored;
                          socket_.shutdown(tcp::socket::shutdown_both, ignored);
                          socket_.close(ignored);
                        }
                      });
  }

  asio::io_context& io_;
  tcp::socket socket_;
  const CpuId& cpu_;
  Store& store_;
  const StoreLimits limits_;
  Measurer& measurer_;
  RunRegistry& runs_;
  Pins pins_;
  std::string pushing_;  // the bundle this session's last manifest named, until committed
  std::string peer_;
  FrameCodec codec_;
  std::array<char, 1 << 16> read_buf_;
  std::deque<std::string> outbox_;
  bool close_after_send_ = false;
  // Hello, then (with a token) the proof, then requests.
  enum class Stage { kHello, kAuth, kReady };
  Stage stage_ = Stage::kHello;
  const std::optional<Token>& token_;
  const bool seal_;
  std::string host_nonce_, agent_nonce_;
  bool failed_auth_ = false;
  asio::steady_timer delay_;
  std::map<std::string, uint64_t> pending_;     // blobs the last manifest lacks: hash -> size
  std::map<std::string, uint64_t> push_blobs_;  // every blob of that manifest: hash -> size
  // The blob being received, and the base its chunks were compressed against (may be empty).
  struct IncomingBlob {
    BlobWriter writer;
    std::string base_hash, base;
  };
  std::optional<IncomingBlob> blob_;
  bool push_failed_ = false;  // a blob of this push failed: its remaining chunks are dropped
  bool run_active_ = false;
  uint32_t rows_sent_ = 0;                           // of the run this session watches
  std::optional<wire::RunRequest> fetched_request_;  // of the run it fetched
};

AgentServer::AgentServer(asio::io_context& io, Store store, CpuId cpu)
    : io_(io), acceptor_(io), retry_(io), cpu_(std::move(cpu)), store_(std::move(store)) {}

AgentServer::~AgentServer() {
  Shutdown();
}

Result<std::unique_ptr<AgentServer>> AgentServer::Create(asio::io_context& io,
                                                         const AgentOptions& options) {
  KT_ASSIGN_OR_RETURN(Store store, Store::Open(options.store_dir));
  KT_ASSIGN_OR_RETURN(CpuId cpu, DetectCpu(options.fake_cpuinfo));
  std::unique_ptr<AgentServer> server(new AgentServer(io, std::move(store), std::move(cpu)));
  server->token_ = options.token;
  server->seal_ = options.token.has_value() && options.seal;
  server->max_bundle_bytes_ = options.max_bundle_bytes;
  server->store_quota_bytes_ = options.store_quota_bytes;
  Sandbox sandbox;
  sandbox.limits = options.limits;
  if (::geteuid() == 0) {  // kernels never run as root
    auto user = LookupUser(options.run_as);
    if (!user.ok()) return user.status().WithContext("--run-as");
    KT_RETURN_IF_ERROR(CheckReachable(*user, server->store_.root()));
    sandbox.user = *user;
  }
  KT_ASSIGN_OR_RETURN(
      server->measurer_,
      Measurer::Create(CpuModelKey(server->cpu_), server->store_.root() + "/pmu-budgets",
                       options.fake_counter_budget, options.exec_wrapper, std::move(sandbox)));
  boost::system::error_code ec;
  auto addr = asio::ip::make_address(options.listen.host, ec);
  if (ec) return InvalidArgument("listen address '" + options.listen.host + "': " + ec.message());
  tcp::endpoint ep(addr, options.listen.port);
  server->acceptor_.open(ep.protocol(), ec);
  if (!ec) server->acceptor_.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) server->acceptor_.bind(ep, ec);
  if (!ec) server->acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return IoError("listen on " + options.listen.ToString() + ": " + ec.message());
  server->Accept();
  return server;
}

HostPort AgentServer::endpoint() const {
  boost::system::error_code ec;
  auto ep = acceptor_.local_endpoint(ec);
  return {ep.address().to_string(), ep.port()};
}

void AgentServer::Accept() {
  acceptor_.async_accept([this](boost::system::error_code ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted) return;
    if (ec) {
      // Out of file descriptors, say: try again shortly instead of spinning.
      Log(LogLevel::kWarn, "accept: " + ec.message());
      retry_.expires_after(std::chrono::milliseconds(100));
      retry_.async_wait([this](boost::system::error_code wait_ec) {
        if (!wait_ec) Accept();
      });
      return;
    }
    socket.set_option(tcp::no_delay(true), ec);
    std::make_shared<Session>(io_, std::move(socket), cpu_, store_,
                              StoreLimits{max_bundle_bytes_, store_quota_bytes_}, *measurer_, runs_,
                              Pins(pins_), token_, seal_)
        ->Start();
    Accept();
  });
}

void AgentServer::Shutdown() {
  boost::system::error_code ec;
  acceptor_.close(ec);
  retry_.cancel();
  if (measurer_) measurer_->Stop();
}

}  // namespace ktune::agent
