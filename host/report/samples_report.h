// How a run's samples read: per variant and event, the symbols by share of the period (a table),
// the whole attribution as JSON, and an annotated disassembly (khost report --samples,
// --annotate). The samples themselves and their attribution: host/results/samples.h.
#pragma once

#include <string>
#include <vector>

#include "host/report/table.h"
#include "host/results/samples.h"

namespace ktune::host {

// One table per variant and sampled event: the `top` symbols by share of the event's period,
// titled with the totals and the kernel symbol's share.
std::vector<Table> SamplesTables(const std::vector<VariantSamples>& samples, size_t top,
                                 const std::string& kernel_symbol);
std::string RenderSamplesJson(const std::vector<VariantSamples>& samples);
// The disassembly (objdump -d text) of the functions that were sampled, each instruction with
// its share of `event`'s period; without a disassembly, the instructions by address.
std::string RenderAnnotated(const VariantSamples& v, const std::string& event,
                            const std::string& disassembly);

}  // namespace ktune::host
