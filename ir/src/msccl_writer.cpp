// MSCCL XML export in the layout msccl-tools' lxml writer produces (formats.md §1.6, §6): no
// declaration, two-space indent, one element per line, every attribute in the real files' order,
// double quotes, plain decimal numbers. Written with fmt rather than pugixml's printer because
// pugixml's indented mode emits "<step ... />" with a space before "/>", which the real files never
// contain; export must be byte-identical to them after one normalising round trip.
#include <string>

#include <fmt/format.h>

#include "ccforge/common/atomic_file.hpp"
#include "ccforge/ir/ir.hpp"
#include "check_phases.hpp"

namespace ccforge::ir {
namespace {

// Only what a double-quoted XML attribute requires: never longer than the escaped text it was read from
// (the reader rejects a bare '&'), so a value within MAX_STR_LEN stays within it when written back.
std::string escape_attribute(std::string_view value) {
  std::string out;
  for (char c : value) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

void write_step(std::string& out, int index, const Step& st) {
  fmt::format_to(std::back_inserter(out),
                 "      <step s=\"{}\" type=\"{}\" srcbuf=\"{}\" srcoff=\"{}\" dstbuf=\"{}\" dstoff=\"{}\" cnt=\"{}\" "
                 "depid=\"{}\" deps=\"{}\" hasdep=\"{}\"/>\n",
                 index, to_string(st.type), to_char(st.src_buf), st.src_off, to_char(st.dst_buf), st.dst_off, st.count,
                 st.dep_tb, st.dep_step, st.has_dep ? 1 : 0);
}

void write_tb(std::string& out, int id, const ThreadBlock& tb) {
  fmt::format_to(std::back_inserter(out), "    <tb id=\"{}\" send=\"{}\" recv=\"{}\" chan=\"{}\"", id, tb.send_peer,
                 tb.recv_peer, tb.channel);
  if (tb.steps.empty()) {
    out += "/>\n";
    return;
  }
  out += ">\n";
  for (std::size_t s = 0; s < tb.steps.size(); ++s) write_step(out, static_cast<int>(s), tb.steps[s]);
  out += "    </tb>\n";
}

void write_gpu(std::string& out, int id, const GpuProgram& gpu) {
  fmt::format_to(std::back_inserter(out), "  <gpu id=\"{}\" i_chunks=\"{}\" o_chunks=\"{}\" s_chunks=\"{}\"", id,
                 gpu.input_chunks, gpu.output_chunks, gpu.scratch_chunks);
  if (gpu.tbs.empty()) {
    out += "/>\n";
    return;
  }
  out += ">\n";
  for (std::size_t t = 0; t < gpu.tbs.size(); ++t) write_tb(out, static_cast<int>(t), gpu.tbs[t]);
  out += "  </gpu>\n";
}

}  // namespace

std::string to_msccl_xml(const Algorithm& algo) {
  std::string out;
  fmt::format_to(std::back_inserter(out),
                 "<algo name=\"{}\" proto=\"{}\" nchannels=\"{}\" nchunksperloop=\"{}\" ngpus=\"{}\" coll=\"{}\" "
                 "inplace=\"{}\" outofplace=\"{}\" minBytes=\"{}\" maxBytes=\"{}\">\n",
                 escape_attribute(algo.name), to_string(algo.protocol), algo.nchannels, algo.nchunksperloop, algo.ngpus,
                 to_string(algo.collective), algo.inplace ? 1 : 0, algo.outofplace ? 1 : 0, algo.min_bytes,
                 algo.max_bytes);
  for (std::size_t g = 0; g < algo.gpus.size(); ++g) write_gpu(out, static_cast<int>(g), algo.gpus[g]);
  out += "</algo>\n";
  return out;
}

// A file is only written when the executor would load it: structure and default limits hold.
void write_msccl_xml(const Algorithm& algo, const std::filesystem::path& path) {
  std::vector<CheckIssue> issues;
  IssueSink sink(algo, issues);
  check_structure(algo, Limits{}, sink);
  for (const CheckIssue& i : issues) {
    if (i.rule.rfind("structure.", 0) != 0 && i.rule.rfind("limit.", 0) != 0) continue;
    const std::string where = i.rank < 0 ? "" : "rank " + std::to_string(i.rank) + (i.tb < 0 ? "" : " tb " + std::to_string(i.tb)) + ": ";
    throw DiagError(Diag{{path.string(), 0}, "not written, the executor would reject it: [" + i.rule + "] " + where + i.message,
                         "run `ccforge ir check` for every problem"});
  }
  write_file_atomically(path, to_msccl_xml(algo));
}

}  // namespace ccforge::ir
