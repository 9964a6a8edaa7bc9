// Hand-built MSCCL algorithms for sim's tests on ND H100 v5: an 8-GPU Simple allreduce skeleton with no
// threadblocks yet, and a threadblock from its steps.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "ccforge/ir/ir.hpp"

namespace ccforge::sim::testing {

inline ir::Algorithm simple_allreduce_skeleton(std::string name, int nchannels, int chunks) {
  ir::Algorithm a;
  a.name = std::move(name);
  a.collective = ir::Collective::AllReduce;
  a.protocol = ir::Protocol::Simple;
  a.ngpus = 8;
  a.nchannels = nchannels;
  a.nchunksperloop = chunks;
  a.gpus.resize(8);
  for (int r = 0; r < 8; ++r) {
    a.gpus[r].rank = r;
    a.gpus[r].input_chunks = a.gpus[r].output_chunks = chunks;
  }
  return a;
}

inline ir::ThreadBlock threadblock(int id, int send, int recv, int channel, std::vector<ir::Step> steps) {
  ir::ThreadBlock b;
  b.id = id;
  b.send_peer = send;
  b.recv_peer = recv;
  b.channel = channel;
  b.steps = std::move(steps);
  return b;
}

}  // namespace ccforge::sim::testing
