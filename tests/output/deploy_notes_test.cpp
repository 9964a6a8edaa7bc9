// DEPLOY.md's stock-NCCL section names what a user must set to load the tuner plugin and its table.
#include <gtest/gtest.h>

#include <string>

#include "deploy_notes.hpp"

namespace ccforge::output {
namespace {

TEST(NcclTunerDeployNotes, NameThePluginVariableAndTable) {
  const std::string notes = nccl_tuner_deploy_notes();
  for (const char* s : {"NCCL_TUNER_PLUGIN=", "libnccl-tuner-ccforge.so", "CCFORGE_NCCL_TUNER_CONF=", "nccl-tuner.conf"})
    EXPECT_NE(notes.find(s), std::string::npos) << s;
}

}  // namespace
}  // namespace ccforge::output
