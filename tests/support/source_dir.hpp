// The source tree's root, for tests, fuzzers and benchmarks that read bundled data.
// Defined once in source_dir.cpp rather than on every test's command line: an absolute path in a -D
// would make every test object differ between clones, so ccache could not share them (CI builds a
// clean clone elsewhere).
#pragma once

namespace ccforge::test {
const char* source_dir();
}  // namespace ccforge::test

#define CCFORGE_SOURCE_DIR (::ccforge::test::source_dir())
