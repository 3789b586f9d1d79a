// LAVA labs as an agent source (issue 36), against a real LAVA 2023.01 on this machine: lava-server
// and lava-dispatcher brought up on loopback by scripts/lava.sh with two qemu devices, each job
// booting the virtual board (scripts/vboard.sh build's kernel and initramfs) from the shipped
// template scripts/lava/vboard-job.yaml. khost reserves its boards through the REST API, measures
// with the board's SBI PMU, and gives the boards back.
#include <doctest/doctest.h>

#include <csignal>
#include <filesystem>
#include <map>
#include <string>

#include "common/fs.h"
#include "common/results.h"
#include "common/strings.h"
#include "host/lava/lava_api.h"
#include "host/results/results_dir.h"
#include "host/util/subprocess.h"
#include "tests/contains.h"
#include "tests/integration/harness.h"
#include "tests/target/target.h"

namespace ktune::host {
namespace {

namespace fs = std::filesystem;
using test::Contains;

const std::string kLavaScript = KTUNE_SOURCE_DIR "/scripts/lava.sh";
const std::string kVboardScript = KTUNE_SOURCE_DIR "/scripts/vboard.sh";

// Why the lab cannot run here, or "".
std::string WhyNoLab() {
  if (FindInPath("lava-server").empty()) return "no lava-server (scripts/setup.sh installs it)";
  if (FindInPath("qemu-system-riscv64").empty()) return "no qemu-system-riscv64";
  if (!fs::exists(test::RiscvAgentd())) return "no riscv64 agentd at " + test::RiscvAgentd();
  return "";
}

// The value after `key` on a line of `text` ("kernel:    /x/Image" -> "/x/Image").
std::string After(const std::string& text, const std::string& key) {
  for (std::string_view line : Split(text, '\n')) {
    if (line.starts_with(key)) return std::string(Trim(line.substr(key.size())));
  }
  return "";
}

// The lab, up for the test and down after it; its boards registered as agent "lab" in `home`.
class Lab {
 public:
  Lab(const std::string& dir, const std::string& home) : dir_(dir), home_(home) {
    up_ = test::RunProgram(kLavaScript, {"up", dir_, "--devices", "2"}, scratch_.path());
    if (up_.exit_code != 0) return;
    auto read = [](const std::string& path) {
      auto t = ReadFile(path);
      return t.ok() ? std::string(Trim(*t)) : std::string();
    };
    url_ = read(dir_ + "/url");
    token_ = read(dir_ + "/token");
    // The shipped template with the lab's own part filled in: where the board's images are.
    const test::CommandResult built = test::RunProgram(kVboardScript, {"build"}, scratch_.path());
    const std::string text = ReadFile(KTUNE_SOURCE_DIR "/scripts/lava/vboard-job.yaml").value();
    job_ = dir_ + "/job.yaml";
    std::string filled = text;
    for (const auto& [marker, key] :
         {std::pair{"@KERNEL_URL@", "kernel:"}, std::pair{"@INITRD_URL@", "initramfs:"}}) {
      const std::string path = After(built.out + built.err, key);
      if (path.empty() || filled.find(marker) == std::string::npos) return;
      for (size_t at; (at = filled.find(marker)) != std::string::npos;) {
        filled.replace(at, std::string(marker).size(), "file://" + path);
      }
    }
    ok_ = WriteFileAtomic(job_, filled).ok();
  }
  ~Lab() {
    if (up_.exit_code == 0) test::RunProgram(kLavaScript, {"down", dir_}, scratch_.path());
  }
  bool ok() const { return ok_; }
  std::string said() const { return up_.out + up_.err; }
  // khost agent add NAME --lava ... with `extra` options, and the lab's template unless `job`.
  test::CommandResult Add(const std::string& name, const std::vector<std::string>& extra,
                          const std::string& job = "") const {
    std::vector<std::string> args = {"agent",
                                     "add",
                                     name,
                                     "--lava",
                                     url_,
                                     "--job-template",
                                     job.empty() ? job_ : job,
                                     "--job-minutes",
                                     "10",
                                     "--replace"};
    args.insert(args.end(), extra.begin(), extra.end());
    return test::RunKhost(args, home_);
  }
  LavaApi Api() const { return LavaApi(url_, token_); }
  const std::string& dir() const { return dir_; }
  const std::string& job() const { return job_; }

 private:
  std::string dir_, home_, url_, token_, job_;
  test::TempDir scratch_;
  test::CommandResult up_;
  bool ok_ = false;
};

// The job ids khost said it submitted ("lab: submitted job 12 to ...").
std::vector<int64_t> SubmittedJobs(const std::string& err) {
  std::vector<int64_t> ids;
  for (std::string_view line : Split(err, '\n')) {
    const size_t at = line.find(": submitted job ");
    if (at == std::string_view::npos) continue;
    std::string_view rest = line.substr(at + 16);
    if (auto id = ParseInt64(rest.substr(0, rest.find(' '))); id.ok()) ids.push_back(*id);
  }
  return ids;
}

// The newest results file of `kernel` under `root` ("" when there is none).
std::string NewestResults(const std::string& root, const std::string& kernel) {
  std::string newest;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(root + "/" + kernel + "/run/results", ec)) {
    if (e.path().extension() == ".csv" && e.path().string() > newest) newest = e.path().string();
  }
  return newest;
}

// Each of `variants` whole in one shard of the run as readers count it (LoadRun): its `reps`
// repetitions in each of the run's passes, once. A variant cut short on a board that dropped out
// keeps those repetitions in the file under that board's shard, and the sweep measures it again
// whole on another: such rows are not counted (`superseded`).
void CheckWhole(const std::string& path, size_t variants, size_t reps, size_t* superseded) {
  const Result<LoadedRun> run = LoadRun("", path);
  REQUIRE_MESSAGE(run.ok(), run.status().message());
  // variant -> shard -> its rows
  std::map<uint32_t, std::map<std::string, size_t>> rows;
  uint32_t passes = 0;
  for (const RepetitionRow& row : run->rows) {
    CHECK(row.valid);
    ++rows[row.variant_index][row.run_id];
    passes = std::max(passes, row.pass + 1);
  }
  CHECK(rows.size() == variants);
  for (const auto& [variant, shards] : rows) {
    CAPTURE(variant);
    REQUIRE(shards.size() == 1);
    CHECK(shards.begin()->second == reps * passes);
  }
  *superseded = run->superseded_rows;
}

// Whether every one of `ids` has ended (the board given back).
bool AllEnded(const LavaApi& api, const std::vector<int64_t>& ids) {
  for (int64_t id : ids) {
    auto job = api.Job(id);
    if (!job.ok() || !job->finished()) return false;
  }
  return true;
}

TEST_CASE("LAVA: khost run on two boards of a real lab, counted by their PMU; faults in words") {
  if (const std::string why = WhyNoLab(); !why.empty()) {
    MESSAGE("skipped: " << why);
    return;
  }
  test::TempDir tmp;
  const std::string home = tmp.path(), root = tmp.path() + "/work";
  Lab lab(tmp.path() + "/lab", home);
  REQUIRE_MESSAGE(lab.ok(), lab.said());
  auto added = lab.Add(
      "lab", {"--device-type", "qemu", "--boards", "2", "--token-file", lab.dir() + "/token"});
  REQUIRE_MESSAGE(added.exit_code == 0, added.err);
  auto tuned = test::TuneSmallMatmul(root, home, 4);
  REQUIRE_MESSAGE(tuned.exit_code == 0, tuned.err);

  auto run = test::RunKhost({"run", "matmul", "--root", root, "--agent", "lab", "--reps", "2",
                             "--warmup", "0", "--events", "instructions:u,cycles:u"},
                            home);
  REQUIRE_MESSAGE(run.exit_code == 0, run.err);
  const std::vector<int64_t> jobs = SubmittedJobs(run.err);
  CHECK(jobs.size() == 2);
  CHECK(Contains(run.err, ": agentd answers at 127.0.0.1:"));
  const std::string results = test::OnlyResults(root + "/matmul/run");
  const std::vector<RepetitionRow> rows = test::RowsOf(results);
  CHECK(rows.size() == 8);  // 4 variants, 2 repetitions, over the two boards
  for (const RepetitionRow& row : rows) {
    CHECK_MESSAGE(row.valid, row.outcome.ToString());
    const MeasuredValue* instructions = row.Find("instructions:u");
    REQUIRE(instructions != nullptr);
    CHECK(instructions->status == ValueStatus::kOk);
  }
  // Both boards given back when the run ended.
  const LavaApi api = lab.Api();
  CHECK(test::WaitFor([&] { return AllEnded(api, jobs); }, 120));

  // A board's job cancelled mid-run: that board drops out, saying why, and the other measures
  // its variants; every repetition once.
  // Long enough that a job cancelled after the first rows ends before the run does.
  const char* kReps = "200";
  const std::vector<std::string> long_run = {"run", "matmul", "--root", root,       "--agent",
                                             "lab", "--reps", kReps,    "--warmup", "0"};
  {
    const std::string before = NewestResults(root, "matmul");
    auto khost = test::StartKhost(long_run, home, tmp.path() + "/cancelled");
    REQUIRE(test::WaitFor(
        [&] {
          const std::string now = NewestResults(root, "matmul");
          return now != before && test::RowsIn(now) >= 2;
        },
        300));
    const int64_t second = jobs.back() + 2;  // this run's two jobs follow the first run's
    const Status cancelled = api.Cancel(second);
    REQUIRE_MESSAGE(cancelled.ok(), cancelled.message());
    const test::CommandResult r = khost->Wait();
    CHECK_MESSAGE(r.exit_code == 0, r.err);
    CHECK_MESSAGE(
        Contains(r.err, "khost run: agent lab/" + std::to_string(second) + " dropped out: "),
        r.err);
    CHECK_MESSAGE(Contains(r.err, "its LAVA job " + std::to_string(second)), r.err);
    size_t superseded = 0;
    CheckWhole(NewestResults(root, "matmul"), 4, 200, &superseded);
    MESSAGE("cancelled mid-run: " << superseded << " rows of the dropped board's variant");
  }
  // khost interrupted: it cancels its jobs and dies of the signal; --resume reserves two new
  // boards and measures what is missing, every repetition once.
  {
    auto khost = test::StartKhost(long_run, home, tmp.path() + "/interrupted");
    const std::string before = NewestResults(root, "matmul");
    REQUIRE(test::WaitFor(
        [&] {
          const std::string now = NewestResults(root, "matmul");
          return now != before && test::RowsIn(now) >= 2;
        },
        300));
    khost->Kill(SIGINT);
    const test::CommandResult r = khost->Wait();
    CHECK(r.exit_code == -1);  // the signal ended it
    const int64_t first = jobs.back() + 3;
    CHECK_MESSAGE(
        Contains(r.err, "khost: interrupted: cancelled LAVA job " + std::to_string(first)), r.err);
    CHECK(test::WaitFor([&] { return AllEnded(api, {first, first + 1}); }, 120));
    CHECK(test::RowsIn(NewestResults(root, "matmul")) < 4 * 200);
    auto resumed = test::RunKhost({"run", "matmul", "--root", root, "--resume"}, home);
    REQUIRE_MESSAGE(resumed.exit_code == 0, resumed.err);
    CHECK(SubmittedJobs(resumed.err).size() == 2);
    size_t superseded = 0;
    CheckWhole(NewestResults(root, "matmul"), 4, 200, &superseded);
    MESSAGE("interrupted and resumed: " << superseded << " rows of variants cut short");
  }

  // Faults: one line each, before anything is measured.
  auto nosuch =
      lab.Add("nosuch", {"--device-type", "nosuch", "--token-file", lab.dir() + "/token"});
  REQUIRE(nosuch.exit_code == 0);
  auto refused = test::RunKhost({"run", "matmul", "--root", root, "--agent", "nosuch"}, home);
  CHECK(refused.exit_code != 0);
  CHECK_MESSAGE(
      Contains(refused.err,
               "refused the job: Devices unavailable: Device type 'nosuch' is unavailable."),
      refused.err);
  // A board that cannot boot (its kernel's file is gone): its job ends, and khost says so in
  // the lab's words, leaving no board reserved.
  std::string broken = ReadFile(lab.job()).value();
  const size_t image = broken.rfind("/Image");  // the kernel's url (the comments name it first)
  REQUIRE(image != std::string::npos);
  broken.replace(image, 6, "/Image.gone");
  REQUIRE(WriteFileAtomic(tmp.path() + "/broken.yaml", broken).ok());
  REQUIRE(lab.Add("broken", {"--device-type", "qemu", "--token-file", lab.dir() + "/token"},
                  tmp.path() + "/broken.yaml")
              .exit_code == 0);
  auto noboot = test::RunKhost({"run", "matmul", "--root", root, "--agent", "broken"}, home);
  CHECK(noboot.exit_code != 0);
  CHECK_MESSAGE(Contains(noboot.err, "agent broken: no board came up (job "), noboot.err);
  CHECK_MESSAGE(Contains(noboot.err, "before agentd answered"), noboot.err);
  const std::vector<int64_t> broken_jobs = SubmittedJobs(noboot.err);
  CHECK(broken_jobs.size() == 1);
  CHECK(test::WaitFor([&] { return AllEnded(api, broken_jobs); }, 60));
  REQUIRE(WriteFileAtomic(tmp.path() + "/bad.token", "0123\n").ok());
  auto badtoken =
      lab.Add("badtoken", {"--device-type", "qemu", "--token-file", tmp.path() + "/bad.token"});
  REQUIRE(badtoken.exit_code == 0);
  auto unauth = test::RunKhost({"run", "matmul", "--root", root, "--agent", "badtoken"}, home);
  CHECK(unauth.exit_code != 0);
  CHECK_MESSAGE(Contains(unauth.err, "refused the API token (HTTP 40"), unauth.err);
}

}  // namespace
}  // namespace ktune::host
