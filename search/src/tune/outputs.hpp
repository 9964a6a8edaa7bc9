// Tune outputs: selection.csv/.md, bands.csv, algorithms/*.xml, nccl-tuner.conf and report.json, each
// written atomically. Everything but report.json's "timing" member is a pure function of the inputs.
#pragma once

#include "ccforge/search/search.hpp"

namespace ccforge::search {

void write_outputs(const TuneResult& result, const TuneOptions& options);

}  // namespace ccforge::search
