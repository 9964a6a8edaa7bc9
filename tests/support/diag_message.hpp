// The one-line message a call throws as a DiagError, or "no error": for tests of error messages.
#pragma once

#include <string>

#include "ccforge/common/diag.hpp"

namespace ccforge::testing {

template <class Run>
std::string diag_message(Run&& run) {
  try {
    run();
  } catch (const DiagError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace ccforge::testing
