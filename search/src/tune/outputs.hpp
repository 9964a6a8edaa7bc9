// Tune outputs: selection.csv/.md, bands.csv, algorithms/*.xml and report.json, each written
// atomically. Everything but report.json's "timing" member is a pure function of the inputs.
#pragma once

#include "ccforge/search/search.hpp"

namespace ccforge::search {

void write_outputs(const TuneResult& result, const TuneOptions& options);

// The rows of selection.csv, header first (also what `ccforge tune` prints per collective).
std::vector<std::string> selection_csv_lines(const TuneResult& result);

}  // namespace ccforge::search
