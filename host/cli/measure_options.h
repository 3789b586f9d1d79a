// The measurement options khost run and khost tune --strategy share on their command lines:
// events, repetitions (fixed or --reps auto), order, cool-down, timeout, pinning, sampling, and
// reuse from the tuning database (--reuse-age, --fresh).
// AddMeasureOptions declares them; ParseMeasureOptions checks them into MeasureOptions (pure).
#pragma once

#include <cxxopts.hpp>
#include <string>
#include <vector>

#include "common/status.h"
#include "host/measure/run_request.h"

namespace ktune::host {

// `order_seed`: --seed shuffles the interleaved rounds (khost run); without it the command's own
// --seed decides the order (khost tune --strategy).
void AddMeasureOptions(cxxopts::Options& options, bool order_seed);
Status ParseMeasureOptions(const cxxopts::ParseResult& result, MeasureOptions* options,
                           bool order_seed);
// --reuse-age's value in seconds (pure): a whole number with an optional unit, s, m, h or d.
Result<int64_t> ParseReuseAge(const std::string& text);
// The options AddMeasureOptions declares, without the leading "--".
const std::vector<std::string>& MeasureOptionNames(bool order_seed);

}  // namespace ktune::host
