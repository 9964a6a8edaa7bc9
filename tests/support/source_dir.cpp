#include "source_dir.hpp"

namespace ccforge::test {
const char* source_dir() { return CCFORGE_SOURCE_ROOT; }
}  // namespace ccforge::test
