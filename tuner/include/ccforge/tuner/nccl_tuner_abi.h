/* NCCL's tuner-plugin interface, versions 1-5, declared here from NVIDIA/nccl's headers so that the
 * plugin builds without NCCL installed. Types and constants are facts of NCCL's ABI; names carry a
 * ccf_ prefix so that this header never collides with nccl.h. Sources (NVIDIA/nccl tags and commits):
 *   v1: v2.19.4-1 (88d44d7) src/include/nccl_tuner.h            symbol ncclTunerPlugin_v1 (2.19, 2.20)
 *   v2: v2.21.5-1 (ab2b89c) src/include/nccl_tuner.h            symbol ncclTunerPlugin_v2 (2.21-2.28)
 *   v3: v2.22.3-1 (178b6b7) src/include/nccl_tuner.h            symbol ncclTunerPlugin_v3 (2.22-2.28)
 *   v4: v2.28.9-1 (dbc86fd) src/include/plugin/tuner/tuner_v4.h symbol ncclTunerPlugin_v4 (2.23-2.28)
 *   v5: v2.28.9-1 (dbc86fd) src/include/plugin/tuner/tuner_v5.h symbol ncclTunerPlugin_v5 (2.28)
 * NCCL 2.28 tries v5, v4, v3, v2 in that order (src/plugin/tuner.cc); 2.22-2.27 v4 (2.23+), v3, v2;
 * 2.19-2.20 only v1. Results, functions and the logger: v2.28.9-1 src/nccl.h.in, src/include/nccl_common.h.
 */
#ifndef CCFORGE_TUNER_NCCL_TUNER_ABI_H
#define CCFORGE_TUNER_NCCL_TUNER_ABI_H

#include <stddef.h>
#include <stdint.h>

#include "ccforge/common/nccl_numbering.h" /* ncclFunc_t, algorithm and protocol indices */

#ifdef __cplusplus
extern "C" {
#endif

/* ncclResult_t (nccl.h.in): an enum, passed as int. */
typedef int ccf_nccl_result_t;
#define CCF_NCCL_SUCCESS 0
#define CCF_NCCL_INTERNAL_ERROR 3
#define CCF_NCCL_INVALID_ARGUMENT 4

/* ncclDebugLogLevel and the subsystem flags a tuner logs under (nccl_common.h). */
#define CCF_NCCL_LOG_WARN 2
#define CCF_NCCL_LOG_INFO 3
#define CCF_NCCL_INIT 0x1
#define CCF_NCCL_TUNING 0x40
typedef void (*ccf_nccl_logger_t)(int level, unsigned long flags, const char* file, int line, const char* fmt, ...);

/* A cost-table entry NCCL will not run (NCCL_ALGO_PROTO_IGNORE). */
#define CCF_NCCL_ALGO_PROTO_IGNORE (-1.0f)
/* MAXCHANNELS (src/include/device.h): 32 in 2.19.4, 64 in 2.28.9. */
#define CCF_NCCL_MAX_CHANNELS 64

/* v1: no context; NCCL reads algorithm, protocol and nChannels back. */
typedef struct {
  const char* name;
  ccf_nccl_result_t (*init)(size_t nRanks, size_t nNodes, ccf_nccl_logger_t logFunction);
  ccf_nccl_result_t (*getCollInfo)(ccf_nccl_func_t collType, size_t nBytes, int collNetSupport, int nvlsSupport,
                                   int numPipeOps, int* algorithm, int* protocol, int* nChannels);
  ccf_nccl_result_t (*destroy)(void);
} ccf_nccl_tuner_v1_t;

/* v2: v1 with a per-communicator context. */
typedef struct {
  const char* name;
  ccf_nccl_result_t (*init)(size_t nRanks, size_t nNodes, ccf_nccl_logger_t logFunction, void** context);
  ccf_nccl_result_t (*getCollInfo)(void* context, ccf_nccl_func_t collType, size_t nBytes, int collNetSupport,
                                   int nvlsSupport, int numPipeOps, int* algorithm, int* protocol, int* nChannels);
  ccf_nccl_result_t (*destroy)(void* context);
} ccf_nccl_tuner_v2_t;

/* v3: the plugin edits NCCL's cost table, float collCostTable[numAlgo][numProto] passed as float**
 * (enqueue.cc casts the 2-D array); NCCL then runs the cheapest entry >= 0. */
typedef struct {
  const char* name;
  ccf_nccl_result_t (*init)(size_t nRanks, size_t nNodes, ccf_nccl_logger_t logFunction, void** context);
  ccf_nccl_result_t (*getCollInfo)(void* context, ccf_nccl_func_t collType, size_t nBytes, int numPipeOps,
                                   float** collCostTable, int numAlgo, int numProto, int* nChannels);
  ccf_nccl_result_t (*destroy)(void* context);
} ccf_nccl_tuner_v3_t;

/* v4: v3 plus regBuff (whether the user buffers are registered). */
typedef struct {
  const char* name;
  ccf_nccl_result_t (*init)(size_t nRanks, size_t nNodes, ccf_nccl_logger_t logFunction, void** context);
  ccf_nccl_result_t (*getCollInfo)(void* context, ccf_nccl_func_t collType, size_t nBytes, int numPipeOps,
                                   float** collCostTable, int numAlgo, int numProto, int regBuff, int* nChannels);
  ccf_nccl_result_t (*destroy)(void* context);
} ccf_nccl_tuner_v4_t;

/* v5 (tuner_v5.h): init gains the communicator id, NVLink-domain info and NCCL's tuning constants. */
typedef struct {
  int nNvlDomains;
  int minRanksPerNvlDomain;
  int maxRanksPerNvlDomain;
} ccf_nccl_nvl_domain_info_v5_t;

#define CCF_NCCL_NUM_HW_LINKS_V5 3
#define CCF_NCCL_NUM_COMPCAPS_V5 4
#define CCF_NCCL_NUM_TUNING_SCALES_V5 3
typedef struct {
  double baseLatencies[CCF_NCCL_NUM_ALGORITHMS][CCF_NCCL_NUM_PROTOCOLS];
  double hwLatencies[CCF_NCCL_NUM_HW_LINKS_V5][CCF_NCCL_NUM_ALGORITHMS][CCF_NCCL_NUM_PROTOCOLS];
  double llMaxBws[CCF_NCCL_NUM_COMPCAPS_V5][CCF_NCCL_NUM_TUNING_SCALES_V5];
  double perChMaxRingLL128Bws[CCF_NCCL_NUM_COMPCAPS_V5][CCF_NCCL_NUM_TUNING_SCALES_V5];
  double perChMaxTreeLL128Bws[CCF_NCCL_NUM_COMPCAPS_V5][CCF_NCCL_NUM_TUNING_SCALES_V5];
  double perChMaxTreeBws[CCF_NCCL_NUM_COMPCAPS_V5][CCF_NCCL_NUM_TUNING_SCALES_V5];
  double perChMaxNVLSTreeBws[CCF_NCCL_NUM_COMPCAPS_V5][CCF_NCCL_NUM_TUNING_SCALES_V5];
} ccf_nccl_tuner_constants_v5_t;

typedef struct {
  const char* name;
  ccf_nccl_result_t (*init)(void** context, uint64_t commId, size_t nRanks, size_t nNodes,
                            ccf_nccl_logger_t logFunction, ccf_nccl_nvl_domain_info_v5_t* nvlDomainInfo,
                            ccf_nccl_tuner_constants_v5_t* constants);
  ccf_nccl_result_t (*getCollInfo)(void* context, ccf_nccl_func_t collType, size_t nBytes, int numPipeOps,
                                   float** collCostTable, int numAlgo, int numProto, int regBuff, int* nChannels);
  ccf_nccl_result_t (*finalize)(void* context);
} ccf_nccl_tuner_v5_t;

#ifdef __cplusplus
}
#endif

#endif
