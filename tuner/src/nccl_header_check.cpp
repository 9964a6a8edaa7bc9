// Compiled only where NCCL's nccl.h is found: checks that the values nccl_tuner_abi.h declares for
// ncclResult_t match the installed NCCL and that it is a version whose tuner interface the plugin
// implements (2.19 introduced the tuner plugin).
#include <nccl.h>

#include "ccforge/tuner/nccl_tuner_abi.h"

static_assert(sizeof(ncclResult_t) == sizeof(ccf_nccl_result_t), "ncclResult_t is passed as int");
static_assert(ncclSuccess == CCF_NCCL_SUCCESS && ncclInternalError == CCF_NCCL_INTERNAL_ERROR &&
                  ncclInvalidArgument == CCF_NCCL_INVALID_ARGUMENT,
              "ncclResult_t values differ from nccl_tuner_abi.h");
static_assert(NCCL_VERSION_CODE >= NCCL_VERSION(2, 19, 0), "NCCL before 2.19 has no tuner plugin interface");
