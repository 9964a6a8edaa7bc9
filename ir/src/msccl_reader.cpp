// MSCCL XML import with pugixml. Accepts what msccl-executor-nccl accepts and rejects, with one
// "FILE:LINE: problem (fix)" line, what it rejects or would mis-read (formats.md §1.2-1.6).
#include <algorithm>
#include <limits>
#include <string>

#include <pugixml.hpp>

#include "ccforge/common/atomic_file.hpp"
#include "ccforge/common/quoting.hpp"
#include "ccforge/common/xml_depth.hpp"
#include "ccforge/ir/ir.hpp"
#include "msccl_lexical.hpp"
#include "op_traits.hpp"

namespace ccforge::ir {
namespace {

constexpr long long kIntMax = std::numeric_limits<int>::max();
constexpr int kExecutorMaxChannels = 32;  // parser checks 0 <= chan <= MAXCHANNELS (formats.md §1.2)
// An algorithm nests <algo>, <gpu>, <tb>, <step>; deeper elements are refused with room to spare, so
// that hostile nesting gets one line instead of reaching code that walks the tree.
constexpr int kMaxXmlDepth = 16;

class Reader {
 public:
  Reader(std::string_view text, std::string file) : text_(text), file_(std::move(file)), lines_(text) {}

  Algorithm read() {
    check_executor_lexing(text_, file_, lines_);
    pugi::xml_document doc;
    const auto parsed = doc.load_buffer(text_.data(), text_.size(), pugi::parse_default | pugi::parse_declaration |
                                                                        pugi::parse_pi | pugi::parse_doctype,
                                        pugi::encoding_utf8);
    if (!parsed) fail(parsed.offset, std::string("malformed XML: ") + parsed.description(), "fix the XML syntax");
    // The document node counts as depth 1 here, so its top-level elements are depth 2.
    if (const pugi::xml_node deep = first_element_deeper_than(doc, kMaxXmlDepth + 1))
      fail(deep, "<" + std::string(deep.name()) + "> is nested more than " + std::to_string(kMaxXmlDepth) + " elements deep",
           "an MSCCL algorithm nests <algo>, <gpu>, <tb>, <step>");
    Algorithm algo = read_algo(only_root(doc));
    algo.source_file = file_;
    return algo;
  }

 private:
  [[noreturn]] void fail(std::ptrdiff_t offset, std::string problem, std::string fix) const {
    throw DiagError(Diag{{file_, lines_.line_of(offset)}, std::move(problem), std::move(fix)});
  }
  [[noreturn]] void fail(const pugi::xml_node& node, std::string problem, std::string fix) const {
    fail(node.offset_debug(), std::move(problem), std::move(fix));
  }
  int line(const pugi::xml_node& node) const { return lines_.line_of(node.offset_debug()); }

  pugi::xml_node only_root(const pugi::xml_document& doc) const {
    pugi::xml_node root;
    for (pugi::xml_node child : doc.children()) {
      if (child.type() == pugi::node_comment) continue;
      if (child.type() == pugi::node_declaration || child.type() == pugi::node_pi)
        fail(child, "XML declaration or processing instruction: the MSCCL executor's parser rejects '<?'",
             "delete the <?...?> line");
      if (child.type() != pugi::node_element) fail(child, "unexpected content before <algo>", "start the file with <algo>");
      if (root) fail(child, "second top-level element <" + std::string(child.name()) + ">", "keep one <algo> per file");
      root = child;
    }
    if (!root) fail(0, "no <algo> element", "the file must contain one <algo> element");
    if (std::string_view(root.name()) != "algo")
      fail(root, "first element is <" + std::string(root.name()) + ">, not <algo>", "start the file with <algo>");
    return root;
  }

  // Element children named `tag`, in document order; anything else but comments is an error.
  std::vector<pugi::xml_node> children(const pugi::xml_node& node, const char* tag) const {
    std::vector<pugi::xml_node> out;
    for (pugi::xml_node child : node.children()) {
      if (child.type() == pugi::node_comment) continue;
      if (child.type() != pugi::node_element)
        fail(child, "unexpected text inside <" + std::string(node.name()) + ">", "remove it");
      if (std::string_view(child.name()) != tag)
        fail(child, "unexpected element <" + std::string(child.name()) + "> inside <" + node.name() + ">",
             std::string("only <") + tag + "> is allowed here");
      out.push_back(child);
    }
    return out;
  }

  std::string_view attr(const pugi::xml_node& node, const char* name) const {
    for (pugi::xml_attribute a : node.attributes())
      if (std::string_view(a.name()) == name) return a.value();
    fail(node, std::string("attribute ") + name + " of <" + node.name() + "> not found", std::string("add ") + name + "=\"...\"");
  }

  long long int_attr(const pugi::xml_node& node, const char* name, long long lo, long long hi) const {
    const std::string_view value = attr(node, name);
    const auto v = parse_decimal(value);
    if (!v)
      fail(node, std::string(name) + "=\"" + std::string(value) + "\" is not a plain decimal integer",
           "write plain decimal without leading zeros: the executor's strtol reads \"010\" as octal 8");
    if (*v < lo || *v > hi)
      fail(node, std::string(name) + "=" + std::string(value) + " is outside [" + std::to_string(lo) + ", " +
                     std::to_string(hi) + "]",
           "use a value in range");
    return *v;
  }
  int small_int(const pugi::xml_node& node, const char* name, long long lo, long long hi = kIntMax) const {
    return static_cast<int>(int_attr(node, name, lo, hi));
  }
  bool flag_attr(const pugi::xml_node& node, const char* name) const { return int_attr(node, name, 0, 1) == 1; }

  Algorithm read_algo(const pugi::xml_node& node) const {
    Algorithm algo;
    algo.name = std::string(attr(node, "name"));
    // The name reaches CSV, Markdown and JSON outputs and the terminal.
    if (first_unprintable(algo.name))
      fail(node, "name=\"" + printable(algo.name) + "\" holds a control character or malformed UTF-8", "write the name in printable UTF-8");
    const std::string_view proto = attr(node, "proto");
    const auto p = protocol_from_string(proto);
    if (!p || proto != to_string(*p)) fail(node, "proto=\"" + std::string(proto) + "\" is not a protocol", "use Simple, LL or LL128, spelled exactly so");
    algo.protocol = *p;
    algo.nchannels = small_int(node, "nchannels", 1);
    algo.nchunksperloop = small_int(node, "nchunksperloop", 1);
    algo.ngpus = small_int(node, "ngpus", 1);
    const std::string_view coll = attr(node, "coll");
    const auto c = collective_from_string(coll);
    if (!c)
      fail(node, "coll=\"" + std::string(coll) + "\" is not a collective the executor knows",
           "use allreduce, allgather, reducescatter, alltoall, broadcast, reduce, gather, scatter, send, recv or alltoallv");
    algo.collective = *c;
    algo.inplace = flag_attr(node, "inplace");
    algo.outofplace = flag_attr(node, "outofplace");
    algo.min_bytes = static_cast<ByteCount>(int_attr(node, "minBytes", 0, std::numeric_limits<long long>::max()));
    algo.max_bytes = static_cast<ByteCount>(int_attr(node, "maxBytes", 0, std::numeric_limits<long long>::max()));
    read_gpus(node, algo);
    return algo;
  }

  void read_gpus(const pugi::xml_node& node, Algorithm& algo) const {
    const auto gpu_nodes = children(node, "gpu");
    // Sized by the elements present, so a huge ngpus costs nothing before it is reported.
    algo.gpus.resize(std::min(gpu_nodes.size(), static_cast<std::size_t>(algo.ngpus)));
    std::vector<bool> seen(algo.gpus.size(), false);
    for (const pugi::xml_node& g : gpu_nodes) {
      const int id = small_int(g, "id", 0);
      if (id >= algo.ngpus) fail(g, "gpu id " + std::to_string(id) + " >= ngpus " + std::to_string(algo.ngpus), "use ids 0..ngpus-1");
      if (static_cast<std::size_t>(id) >= seen.size()) fail(g, "gpu id " + std::to_string(id) + " but only " + std::to_string(gpu_nodes.size()) + " <gpu> elements", "give each of the ngpus ranks one <gpu>");
      if (seen[static_cast<std::size_t>(id)]) fail(g, "duplicate gpu id " + std::to_string(id), "give each rank one <gpu>");
      seen[static_cast<std::size_t>(id)] = true;
      algo.gpus[static_cast<std::size_t>(id)] = read_gpu(g, id, algo);
    }
    for (std::size_t r = 0; r < static_cast<std::size_t>(algo.ngpus); ++r)
      if (r >= seen.size() || !seen[r]) fail(node, "no <gpu id=\"" + std::to_string(r) + "\">", "ngpus=" + std::to_string(algo.ngpus) + " needs one <gpu> per rank");
  }

  GpuProgram read_gpu(const pugi::xml_node& node, int id, const Algorithm& algo) const {
    GpuProgram gpu;
    gpu.rank = id;
    gpu.line = line(node);
    gpu.input_chunks = small_int(node, "i_chunks", 0);
    gpu.output_chunks = small_int(node, "o_chunks", 0);
    gpu.scratch_chunks = small_int(node, "s_chunks", 0);
    const auto tb_nodes = children(node, "tb");
    gpu.tbs.resize(tb_nodes.size());
    std::vector<bool> seen(tb_nodes.size(), false);
    for (const pugi::xml_node& t : tb_nodes) {
      const int tb_id = small_int(t, "id", 0);
      if (static_cast<std::size_t>(tb_id) >= tb_nodes.size())
        fail(t, "thread block id " + std::to_string(tb_id) + " leaves a gap (gpu has " + std::to_string(tb_nodes.size()) + " tbs)",
             "number tbs densely from 0");
      if (seen[static_cast<std::size_t>(tb_id)]) fail(t, "duplicate thread block id " + std::to_string(tb_id), "number tbs densely from 0");
      seen[static_cast<std::size_t>(tb_id)] = true;
      gpu.tbs[static_cast<std::size_t>(tb_id)] = read_tb(t, tb_id, gpu, algo);
    }
    check_dep_targets(gpu);
    return gpu;
  }

  ThreadBlock read_tb(const pugi::xml_node& node, int id, const GpuProgram& gpu, const Algorithm& algo) const {
    ThreadBlock tb;
    tb.id = id;
    tb.line = line(node);
    tb.send_peer = small_int(node, "send", -1, algo.ngpus - 1);
    tb.recv_peer = small_int(node, "recv", -1, algo.ngpus - 1);
    if (tb.send_peer == gpu.rank || tb.recv_peer == gpu.rank)
      fail(node, "thread block of rank " + std::to_string(gpu.rank) + " sends to or receives from itself", "use cpy/re for local data, -1 for no peer");
    tb.channel = small_int(node, "chan", 0, kExecutorMaxChannels);
    const auto step_nodes = children(node, "step");
    tb.steps.reserve(step_nodes.size());
    for (const pugi::xml_node& s : step_nodes) tb.steps.push_back(read_step(s, static_cast<int>(tb.steps.size()), gpu));
    return tb;
  }

  Step read_step(const pugi::xml_node& node, int index, const GpuProgram& gpu) const {
    Step step;
    step.line = line(node);
    const int s = small_int(node, "s", 0);
    if (s != index) fail(node, "step s=" + std::to_string(s) + " where " + std::to_string(index) + " was expected", "number steps consecutively from 0, nops included");
    const std::string_view type = attr(node, "type");
    const auto t = op_from_string(type);
    if (!t) fail(node, "type=\"" + std::string(type) + "\" is not an MSCCL op", "use s, r, rcs, rrs, rrc, rrcs, cpy, re or nop");
    step.type = *t;
    step.src_buf = buffer(node, "srcbuf");
    step.dst_buf = buffer(node, "dstbuf");
    step.src_off = small_int(node, "srcoff", -1);
    step.dst_off = small_int(node, "dstoff", -1);
    step.count = small_int(node, "cnt", step.type == OpType::Nop ? -1 : 0);
    step.dep_tb = small_int(node, "depid", -1);
    step.dep_step = small_int(node, "deps", -1);
    step.has_dep = flag_attr(node, "hasdep");
    if ((step.dep_tb < 0) != (step.dep_step < 0))
      fail(node, "depid and deps must both be -1 or both name a step", "set both or neither");
    const OpTraits tr = traits(step.type);
    if (tr.parser_checks_src) check_offset(node, "srcoff", step.src_off, chunks_of(gpu, step.src_buf));
    if (tr.parser_checks_dst) check_offset(node, "dstoff", step.dst_off, chunks_of(gpu, step.dst_buf));
    return step;
  }

  BufferKind buffer(const pugi::xml_node& node, const char* name) const {
    const std::string_view v = attr(node, name);
    const auto b = buffer_from_string(v);
    if (!b) fail(node, std::string(name) + "=\"" + std::string(v) + "\" is not a buffer", "use i, o or s");
    return *b;
  }

  void check_offset(const pugi::xml_node& node, const char* name, int offset, int chunks) const {
    if (offset >= chunks)
      fail(node, std::string(name) + "=" + std::to_string(offset) + " is outside the buffer's " + std::to_string(chunks) + " chunks",
           "use an offset in [-1, chunks) or enlarge i_chunks/o_chunks/s_chunks");
  }

  void check_dep_targets(const GpuProgram& gpu) const {
    for (const ThreadBlock& tb : gpu.tbs)
      for (const Step& st : tb.steps) {
        if (st.dep_tb < 0) continue;
        const auto dep = static_cast<std::size_t>(st.dep_tb);
        if (dep >= gpu.tbs.size() || static_cast<std::size_t>(st.dep_step) >= gpu.tbs[dep].steps.size())
          throw DiagError(Diag{{file_, st.line},
                               "depid=" + std::to_string(st.dep_tb) + " deps=" + std::to_string(st.dep_step) +
                                   " names no step of gpu " + std::to_string(gpu.rank),
                               "point the dependency at an existing tb and step"});
      }
  }

  std::string_view text_;
  std::string file_;
  LineIndex lines_;
};

}  // namespace

Algorithm parse_msccl_xml(std::string_view text, const std::string& file_label) {
  return Reader(text, file_label).read();
}

Algorithm read_msccl_xml(const std::filesystem::path& path) {
  const std::string text = read_file(path);
  return parse_msccl_xml(text, path.string());
}

}  // namespace ccforge::ir
