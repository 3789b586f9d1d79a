// The strategies behind MakeStrategy (host/strategy/strategy.h), one file each.
#pragma once

#include <memory>

#include "host/strategy/strategy.h"

namespace ktune::host {

std::unique_ptr<Strategy> MakeAnneal(const SearchSpace& space, const StrategyOptions& options);
std::unique_ptr<Strategy> MakeGenetic(const SearchSpace& space, const StrategyOptions& options);
std::unique_ptr<Strategy> MakeBayes(const SearchSpace& space, const StrategyOptions& options);

}  // namespace ktune::host
