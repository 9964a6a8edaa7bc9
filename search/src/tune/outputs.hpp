// Tune outputs: selection.csv/.md, bands.csv, algorithms/*.xml, nccl-tuner.conf, report.json, DEPLOY.md and
// env.sh, the directory replaced as a whole. Everything but report.json's "timing" member is a pure function
// of the inputs.
#pragma once

#include "ccforge/search/search.hpp"

namespace ccforge::search {

// Writes everything into a fresh directory beside options.out_dir (carrying over the collectives of an
// earlier tune there that this one does not cover, unless options.replace) and swaps it in at once;
// sets result.carried_over and result.replaced.
void write_outputs(TuneResult& result, const TuneOptions& options);

}  // namespace ccforge::search
