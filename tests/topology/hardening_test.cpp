// Hostile and careless inputs: deep nesting, non-finite numbers, impossible machine values; and the
// completed-topology writer that turns a partial Azure file plus flags into a file that needs none.
#include "ccforge/topology/topology.hpp"
#include "test_paths.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace ccforge::topo {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

fs::path temp_file(const std::string& name) {
  return fs::temp_directory_path() / ("ccforge_hardening_test_" + std::to_string(::getpid()) + "_" + name);
}

std::string load_error(const fs::path& path, const LoadOptions& options = {}) {
  try {
    load_topology(path, options);
  } catch (const DiagError& e) {
    return e.what();
  }
  ADD_FAILURE() << path << " loaded";
  return {};
}

TEST(Hardening, ThirtyThousandNestedPciAreOneLineNotAStackOverflow) {
  const fs::path path = temp_file("deep.xml");
  {
    std::ofstream out(path);
    out << "<system version=\"1\"><cpu numaid=\"0\" vendor=\"GenuineIntel\">\n";
    for (int i = 0; i < 30000; ++i) out << "<pci busid=\"0000:01:00.0\" class=\"0x060400\" link_speed=\"\">\n";
    for (int i = 0; i < 30000; ++i) out << "</pci>";
    out << "</cpu></system>\n";
  }
  // Line 2 holds <cpu>'s first <pci>, depth 3; the 63rd <pci> is depth 65.
  EXPECT_EQ(load_error(path), path.string() + ":64: <pci> is nested more than 64 elements deep "
                                              "(check the file's structure: topologies nest a few PCI switches, cluster and profile files one level)");
  fs::remove(path);
}

TEST(Hardening, NonFiniteNumbersAreRejectedWithTheirValue) {
  const fs::path path = temp_file("nan.xml");
  std::ofstream(path) << "<cluster nodes=\"2\" node=\"" << testing::bundled("ndv5.xml").string()
                      << "\" fabric=\"fat-tree\" nic_speed_gbps=\"nan\"/>\n";
  EXPECT_THAT(load_error(path), HasSubstr(":1: nic_speed_gbps=\"nan\" is not a finite number"));
  std::ofstream(path) << "<cluster nodes=\"2\" node=\"" << testing::bundled("ndv5.xml").string()
                      << "\" fabric=\"fat-tree\" nic_speed_gbps=\"-1\"/>\n";
  EXPECT_THAT(load_error(path), HasSubstr(":1: nic_speed_gbps=\"-1\" is out of range (allowed: > 0 and <= 100000)"));
  fs::remove(path);
}

TEST(Hardening, MachineNicSpeedFromTheApiIsChecked) {
  const LoadOptions nan{MachineDescription{"H100 SXM", "nvswitch", std::nullopt, std::nan("")}, {}};
  EXPECT_THAT(load_error(testing::azure("ndv5-topo.xml"), nan), HasSubstr("NIC speed nan Gb/s is out of range"));
}

TEST(Hardening, CompletedAzureFileLoadsWithoutFlagsToTheSameTopology) {
  const LoadOptions flags{MachineDescription{"H100 SXM", "nvswitch", std::nullopt, 400.0}, {}};
  const fs::path out = temp_file("completed.xml");
  write_completed_topology(testing::azure("ndv5-topo.xml"), flags.machine, out);
  const Topology expected = load_topology(testing::azure("ndv5-topo.xml"), flags);
  const Topology completed = load_topology(out);
  EXPECT_EQ(completed.name(), "ndv5-topo");
  ASSERT_EQ(completed.num_gpus(), expected.num_gpus());
  ASSERT_EQ(completed.links().size(), expected.links().size());
  for (std::size_t i = 0; i < expected.links().size(); ++i) {
    EXPECT_EQ(completed.links()[i].bandwidth.bytes_per_s, expected.links()[i].bandwidth.bytes_per_s);
    EXPECT_EQ(completed.links()[i].detail, expected.links()[i].detail);
  }
  EXPECT_EQ(completed.gpu(7).model->name, std::string("H100 SXM"));
  fs::remove(out);
}

TEST(Hardening, ClusterFilesAreNotRewrittenAsNodes) {
  try {
    write_completed_topology(testing::bundled("ndv5-x2.xml"), std::nullopt, temp_file("never.xml"));
    FAIL();
  } catch (const DiagError& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot save <cluster> as a node topology (complete the cluster's node file instead)"));
  }
  EXPECT_FALSE(fs::exists(temp_file("never.xml")));
}

TEST(Hardening, GpuMemoryComesFromTheModelTable) {
  EXPECT_EQ(find_gpu_model("H100 SXM")->memory_bytes(), std::uint64_t{80} << 30);
  EXPECT_EQ(find_gpu_model("MI300X")->memory_bytes(), std::uint64_t{192} << 30);
  EXPECT_EQ(find_gpu_model("H300"), nullptr);
}

}  // namespace
}  // namespace ccforge::topo
