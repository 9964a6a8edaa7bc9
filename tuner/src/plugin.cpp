// libnccl-tuner-ccforge.so: applies the rules of an nccl-tuner.conf written by `ccforge tune` to stock
// NCCL through its tuner-plugin interface (versions 1-5, nccl_tuner_abi.h). Per communicator it keeps
// the rules of its node count and ranks per node; a call inside a rule's band gets that algorithm,
// protocol and (when not 0) channel count, everything else keeps NCCL's choice. A missing or malformed
// table, or an override NCCL marks unrunnable, is a log line and no override: never an error returned
// to NCCL, never a crash (no exception crosses the C boundary).
#include <dlfcn.h>

#include <cstdlib>
#include <fstream>
#include <exception>
#include <sstream>
#include <string>

#include "ccforge/tuner/nccl_tuner_abi.h"
#include "ccforge/tuner/tuner_conf.hpp"

namespace {

namespace conf = ccforge::tuner_conf;

constexpr const char* kEnvTable = "CCFORGE_NCCL_TUNER_CONF";
constexpr const char* kDefaultTableName = "nccl-tuner.conf";

struct Context {
  std::vector<conf::Rule> rules;  // only this communicator's shape
  int nodes = 1;
  int ranks_per_node = 1;
};

void log(ccf_nccl_logger_t logger, int level, const std::string& message) {
  if (logger) logger(level, CCF_NCCL_INIT | CCF_NCCL_TUNING, __FILE__, __LINE__, "%s", message.c_str());
}

// The table next to this library (dladdr finds the file the symbol was loaded from).
std::string default_table_path() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&default_table_path), &info) == 0 || info.dli_fname == nullptr)
    return kDefaultTableName;
  const std::string lib = info.dli_fname;
  const auto slash = lib.rfind('/');
  return slash == std::string::npos ? kDefaultTableName : lib.substr(0, slash + 1) + kDefaultTableName;
}

Context* make_context(std::size_t nranks, std::size_t nnodes, ccf_nccl_logger_t logger) {
  auto* ctx = new Context;
  if (nnodes == 0 || nranks % nnodes != 0) {
    log(logger, CCF_NCCL_LOG_INFO, "ccforge tuner: uneven ranks per node; leaving NCCL's choices");
    return ctx;
  }
  ctx->nodes = static_cast<int>(nnodes);
  ctx->ranks_per_node = static_cast<int>(nranks / nnodes);
  const char* env = std::getenv(kEnvTable);
  const std::string path = env && *env ? env : default_table_path();
  std::ifstream file(path);
  if (!file) {
    log(logger, CCF_NCCL_LOG_WARN, "ccforge tuner: cannot read " + path + " (set " + kEnvTable + "); leaving NCCL's choices");
    return ctx;
  }
  std::stringstream text;
  text << file.rdbuf();
  const conf::ParseResult table = conf::parse_table(text.str());
  if (!table.ok()) {
    log(logger, CCF_NCCL_LOG_WARN, "ccforge tuner: " + path + ":" + std::to_string(table.error_line) + ": " + table.error +
                                       " (rewrite it with ccforge tune); leaving NCCL's choices");
    return ctx;
  }
  for (const conf::Rule& r : table.rules)
    if (r.nodes == ctx->nodes && r.ranks_per_node == ctx->ranks_per_node) ctx->rules.push_back(r);
  log(logger, CCF_NCCL_LOG_INFO,
      "ccforge tuner: initialised from " + path + ", " + std::to_string(ctx->rules.size()) + " of " +
          std::to_string(table.rules.size()) + " rules for " + std::to_string(ctx->nodes) + " node(s) x " +
          std::to_string(ctx->ranks_per_node) + " ranks");
  return ctx;
}

const conf::Rule* rule_for(const void* context, ccf_nccl_func_t func, std::size_t bytes) {
  const auto* ctx = static_cast<const Context*>(context);
  return ctx ? conf::match(ctx->rules, func, bytes, ctx->nodes, ctx->ranks_per_node) : nullptr;
}

// Cost-table versions (3+): the rule's entry becomes the cheapest, unless NCCL marked it unrunnable.
void apply_to_cost_table(const conf::Rule* r, float** cost_table, int num_algo, int num_proto, int* nchannels) {
  if (!r || !cost_table || r->algo >= num_algo || r->proto >= num_proto) return;
  float* entry = reinterpret_cast<float*>(cost_table) + r->algo * num_proto + r->proto;  // float[numAlgo][numProto]
  if (*entry == CCF_NCCL_ALGO_PROTO_IGNORE) return;
  *entry = 0.0f;
  if (r->channels > 0 && nchannels) *nchannels = r->channels;
}

// Output versions (1, 2): NCCL runs what the plugin writes, so skip what this communicator cannot run.
void apply_outputs(const conf::Rule* r, int collnet_support, int nvls_support, int* algorithm, int* protocol,
                   int* nchannels) {
  if (!r || !algorithm || !protocol) return;
  const bool nvls = r->algo == CCF_NCCL_ALGO_NVLS || r->algo == CCF_NCCL_ALGO_NVLS_TREE;
  const bool collnet = r->algo == CCF_NCCL_ALGO_COLLNET_DIRECT || r->algo == CCF_NCCL_ALGO_COLLNET_CHAIN;
  if ((nvls && !nvls_support) || (collnet && !collnet_support) || r->algo == CCF_NCCL_ALGO_PAT) return;
  *algorithm = r->algo;
  *protocol = r->proto;
  if (r->channels > 0 && nchannels) *nchannels = r->channels;
}

ccf_nccl_result_t init_context(std::size_t nranks, std::size_t nnodes, ccf_nccl_logger_t logger, void** context) {
  if (!context) return CCF_NCCL_INVALID_ARGUMENT;
  try {
    *context = make_context(nranks, nnodes, logger);
  } catch (const std::exception& e) {  // out of memory: no tuner rather than a failed communicator
    log(logger, CCF_NCCL_LOG_WARN, std::string("ccforge tuner: ") + e.what() + "; leaving NCCL's choices");
    *context = nullptr;
  }
  return CCF_NCCL_SUCCESS;
}

ccf_nccl_result_t destroy_context(void* context) {
  delete static_cast<Context*>(context);
  return CCF_NCCL_SUCCESS;
}

// v1 has no context argument: one communicator's rules per process (NCCL 2.19-2.20 load it once).
void* v1_context = nullptr;

ccf_nccl_result_t init_v1(std::size_t nranks, std::size_t nnodes, ccf_nccl_logger_t logger) {
  destroy_context(v1_context);
  return init_context(nranks, nnodes, logger, &v1_context);
}
ccf_nccl_result_t coll_info_v1(ccf_nccl_func_t func, std::size_t bytes, int collnet, int nvls, int, int* algorithm,
                               int* protocol, int* nchannels) {
  apply_outputs(rule_for(v1_context, func, bytes), collnet, nvls, algorithm, protocol, nchannels);
  return CCF_NCCL_SUCCESS;
}
ccf_nccl_result_t destroy_v1() {
  destroy_context(v1_context);
  v1_context = nullptr;
  return CCF_NCCL_SUCCESS;
}

ccf_nccl_result_t coll_info_v2(void* ctx, ccf_nccl_func_t func, std::size_t bytes, int collnet, int nvls, int,
                               int* algorithm, int* protocol, int* nchannels) {
  apply_outputs(rule_for(ctx, func, bytes), collnet, nvls, algorithm, protocol, nchannels);
  return CCF_NCCL_SUCCESS;
}

ccf_nccl_result_t coll_info_v3(void* ctx, ccf_nccl_func_t func, std::size_t bytes, int, float** table, int num_algo,
                               int num_proto, int* nchannels) {
  apply_to_cost_table(rule_for(ctx, func, bytes), table, num_algo, num_proto, nchannels);
  return CCF_NCCL_SUCCESS;
}

ccf_nccl_result_t coll_info_v4(void* ctx, ccf_nccl_func_t func, std::size_t bytes, int, float** table, int num_algo,
                               int num_proto, int, int* nchannels) {
  apply_to_cost_table(rule_for(ctx, func, bytes), table, num_algo, num_proto, nchannels);
  return CCF_NCCL_SUCCESS;
}

ccf_nccl_result_t init_v5(void** context, std::uint64_t, std::size_t nranks, std::size_t nnodes,
                          ccf_nccl_logger_t logger, ccf_nccl_nvl_domain_info_v5_t*, ccf_nccl_tuner_constants_v5_t*) {
  return init_context(nranks, nnodes, logger, context);
}

}  // namespace

#define CCF_EXPORT __attribute__((visibility("default")))

extern "C" {
CCF_EXPORT extern const ccf_nccl_tuner_v1_t ncclTunerPlugin_v1;
CCF_EXPORT extern const ccf_nccl_tuner_v2_t ncclTunerPlugin_v2;
CCF_EXPORT extern const ccf_nccl_tuner_v3_t ncclTunerPlugin_v3;
CCF_EXPORT extern const ccf_nccl_tuner_v4_t ncclTunerPlugin_v4;
CCF_EXPORT extern const ccf_nccl_tuner_v5_t ncclTunerPlugin_v5;

const ccf_nccl_tuner_v1_t ncclTunerPlugin_v1 = {"ccforge", init_v1, coll_info_v1, destroy_v1};
const ccf_nccl_tuner_v2_t ncclTunerPlugin_v2 = {"ccforge", init_context, coll_info_v2, destroy_context};
const ccf_nccl_tuner_v3_t ncclTunerPlugin_v3 = {"ccforge", init_context, coll_info_v3, destroy_context};
const ccf_nccl_tuner_v4_t ncclTunerPlugin_v4 = {"ccforge", init_context, coll_info_v4, destroy_context};
const ccf_nccl_tuner_v5_t ncclTunerPlugin_v5 = {"ccforge", init_v5, coll_info_v4, destroy_context};
}
