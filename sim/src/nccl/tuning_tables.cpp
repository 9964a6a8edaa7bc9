#include "tuning_tables.hpp"

#include "tuning_tables_2_18.hpp"
#include "tuning_tables_2_23.hpp"
#include "tuning_tables_2_28.hpp"

namespace ccforge::sim::nccl {

const TuningConstants* tuning_tables_for(NcclVersion version) {
  struct Carried {
    int minor;
    const TuningConstants* tables;
  };
  // 2.22's model equals 2.21's (see kNccl2_21_5); 2.19, 2.20, 2.24, 2.25 and 2.29 are not read.
  static constexpr Carried kCarried[] = {{18, &kNccl2_18_3}, {21, &kNccl2_21_5}, {22, &kNccl2_21_5},
                                         {23, &kNccl2_23_4}, {26, &kNccl2_26_6}, {27, &kNccl2_27_7},
                                         {28, &kNccl2_28_9}};
  if (version.major != 2) return nullptr;
  for (const Carried& c : kCarried) {
    if (c.minor == version.minor) return c.tables;
  }
  return nullptr;
}

}  // namespace ccforge::sim::nccl
