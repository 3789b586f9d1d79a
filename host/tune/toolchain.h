// Toolchain profiles: how `khost tune` compiles a variant for a target. A profile is
// toolchains/<name>.profile, "key = value" lines ('#' comments); the same file drives the CMake
// toolchain file toolchains/<name>.cmake (toolchains/profile.cmake). Keys (docs/KSPEC.md):
//
//   description   one line saying what the profile targets
//   processor     the target's CMAKE_SYSTEM_PROCESSOR (cross profiles)
//   cc, cxx       C and C++ compiler commands
//   target_flags  flags selecting the target (--target, -march), on every compile and link
//   cflags        optimisation and debug flags
//   ldflags       link flags (-static)
//   ll_cc         compiler for Triton .llir (default: cc); ll_flags its target flags (default:
//                 target_flags)
//   objdump       disassembler for the .elf.s dumps (llvm-objdump: binutils 2.40 prints RVV
//                 instructions as .4byte)
//   emulator      runs the target's ELFs on this machine (absent: they run directly)
//   name_prefix, name_suffix   around <kernel>_<values> in ELF names (VL256_ ... _g_static_O2)
//   packages      TOOL:DEBIAN_PACKAGE pairs, for the message when a tool is missing
//   needs         further tools the compilers call (GNU ld for clang)
//   launcher      runs every compile (not the link) as LAUNCHER COMPILER ARGS..., as CMake's
//                 <LANG>_COMPILER_LAUNCHER: distcc or icecc for a compile farm (khost tune
//                 --launcher sets or overrides it). Where a compile runs does not change what
//                 it makes: the launcher is no part of a variant's cache key.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace ktune::host {

struct Toolchain {
  std::string name;  // the profile's file name without .profile
  std::string text;  // the profile's bytes but a launcher line (part of every cache key)
  std::string description, processor;
  std::vector<std::string> cc, cxx, target_flags, cflags, ldflags, ll_cc, ll_flags, objdump,
      emulator, needs, launcher;
  std::string name_prefix, name_suffix;
  std::map<std::string, std::string> packages;  // tool -> Debian package
};

// Parses a profile (pure); errors name `path` and the line.
Result<Toolchain> ParseToolchain(std::string_view text, const std::string& path);

// `name_or_path`: a .profile file, or a name looked up as <dir>/<name>.profile.
Result<Toolchain> LoadToolchain(const std::string& name_or_path, const std::string& dir);

// The profiles in `dir`, by name.
std::vector<std::string> ToolchainNames(const std::string& dir);

// Checks that every tool the profile builds with (cc, cxx, ll_cc, objdump, needs, launcher;
// and the emulator when `with_emulator`) is in PATH. The error names the first missing tool and the
// Debian package that provides it.
Status CheckTools(const Toolchain& t, bool with_emulator);

// Whether `launcher` runs distcc (distcc itself, or a command such as env ... distcc).
bool LaunchesDistcc(const std::vector<std::string>& launcher);

// Builds at once at most: each is a compiler process and a thread of khost's.
inline constexpr size_t kMaxJobs = 1024;

// How many builds to run at once: `jobs` when given; else, through distcc, as many as its hosts
// take (`LAUNCHER -j`: DISTCC_HOSTS or ~/.distcc/hosts), at least the local cores, at most
// kMaxJobs; else one per local core. `source` says where the number came from, for the tune's
// first line.
struct BuildSlots {
  size_t count = 1;
  std::string source;
};
BuildSlots BuildParallelism(const Toolchain& t, size_t jobs);

}  // namespace ktune::host
