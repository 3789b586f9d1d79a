#include "host/tune/apply_best.h"

#include <algorithm>
#include <utility>

#include "common/fs.h"
#include "common/strings.h"
#include "host/tune/config_space.h"
#include "host/tune/kspec_best.h"
#include "host/tune/variant_build.h"
#include "host/util/user_paths.h"

namespace ktune::host {
namespace {

// The winner's configuration, one value per parameter of the spec; its best: line with it.
Result<Config> ConfigOf(const SpecForBest& target, const BestChoice& best, std::string* best_line) {
  const KernelSpec& spec = target.spec;
  Config config;
  *best_line = "best:";
  for (size_t i = 0; i < spec.params.size(); ++i) {
    const SpecParam& p = spec.params[i];
    Result<int64_t> v = ParseInt64(i < best.values.size() ? best.values[i] : "");
    if (!v.ok()) {
      return NotFound("run " + best.run_id + "'s winner " + best.variant + " has no value of " +
                      p.name + ": were its variants tuned from " + spec.path + "?");
    }
    config.push_back(*v);
    *best_line += " " + p.name + "=" + std::to_string(*v);
  }
  return config;
}

}  // namespace

Result<SpecForBest> ReadSpecForBest(const std::string& kernel, const std::string& kernels_dir) {
  KT_ASSIGN_OR_RETURN(std::string spec_path, KernelSpecPath(kernel, kernels_dir));
  auto read = ReadFile(spec_path);
  if (!read.ok()) return NotFound("no kernel spec " + spec_path + ": " + read.status().message());
  SpecForBest target;
  target.text = std::move(read).value();
  KT_ASSIGN_OR_RETURN(target.spec, ParseKernelSpec(WithoutBestLine(target.text), spec_path));
  return target;
}

Result<std::string> ApplyBest(const SpecForBest& target, const BestChoice& best) {
  const KernelSpec& spec = target.spec;
  std::string best_line;
  KT_ASSIGN_OR_RETURN(const Config config, ConfigOf(target, best, &best_line));
  // Only a configuration the spec can build now: its candidates and constraints may have changed
  // since the run.
  KT_ASSIGN_OR_RETURN(Space space, EnumerateSpace(spec, {}));
  if (std::find(space.configs.begin(), space.configs.end(), config) == space.configs.end()) {
    return InvalidArgument("run " + best.run_id + "'s winner (" + best_line.substr(6) +
                           ") is not a configuration of " + spec.path +
                           " as it is now (its candidates or constraints changed?): nothing "
                           "written");
  }
  const std::string comment =
      "# khost tune --apply-best: run " + best.run_id + ", " + best.variant + ", " + best.why;
  const std::string updated = WithBestLine(target.text, comment, best_line);
  KT_RETURN_IF_ERROR(ParseKernelSpec(updated, spec.path).status());  // still a valid spec
  // The spec's folder is the user's (a spec or its constants may be links into another tree):
  // written as a shell's redirection would.
  KT_RETURN_IF_ERROR(WriteUserFile(spec.dir + "/best_constants.c", ConstantsSource(spec, config)));
  KT_RETURN_IF_ERROR(
      WriteUserFile(spec.dir + "/best_blk_constants.json", BlkConstantsJson(spec, config)));
  KT_RETURN_IF_ERROR(WriteUserFile(spec.path, updated));
  return best_line;
}

}  // namespace ktune::host
