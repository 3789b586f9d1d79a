#!/usr/bin/env bash
# Fails (listing the files) when a tracked C/C++ file differs from what clang-format makes of it
# with the root .clang-format.
set -euo pipefail
cd "$(dirname "$0")/.."
bad=()
while IFS= read -r f; do
  clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done < <(git ls-files '*.cc' '*.h' '*.c')
if [ ${#bad[@]} -gt 0 ]; then
  echo "not clang-formatted (run clang-format -i on them):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
