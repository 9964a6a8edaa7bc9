// Element types of a collective call, one vocabulary for every part: the simulator (whose chunks must
// hold whole elements), the search (tune -d), the executor and validate (which store and reduce them).
#pragma once

#include <array>
#include <cctype>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "ccforge/common/diag.hpp"

namespace ccforge {

// In NCCL's ncclDataType_t order (NVIDIA/nccl src/nccl.h.in: ncclInt8 = 0 ... ncclBfloat16 = 9).
enum class DataType { Int8, Uint8, Int32, Uint32, Int64, Uint64, Half, Float, Double, BFloat16 };

inline constexpr std::array<DataType, 10> kDataTypes = {DataType::Int8,  DataType::Uint8,  DataType::Int32, DataType::Uint32,
                                                        DataType::Int64, DataType::Uint64, DataType::Half,  DataType::Float,
                                                        DataType::Double, DataType::BFloat16};

// nccl-tests' -d spelling (NVIDIA/nccl-tests src/common.cu test_typenames).
constexpr const char* to_string(DataType t) {
  switch (t) {
    case DataType::Int8: return "int8";
    case DataType::Uint8: return "uint8";
    case DataType::Int32: return "int32";
    case DataType::Uint32: return "uint32";
    case DataType::Int64: return "int64";
    case DataType::Uint64: return "uint64";
    case DataType::Half: return "half";
    case DataType::Float: return "float";
    case DataType::Double: return "double";
    case DataType::BFloat16: return "bfloat16";
  }
  return "?";
}

constexpr std::size_t size_of(DataType t) {
  switch (t) {
    case DataType::Int8: case DataType::Uint8: return 1;
    case DataType::Half: case DataType::BFloat16: return 2;
    case DataType::Int32: case DataType::Uint32: case DataType::Float: return 4;
    case DataType::Int64: case DataType::Uint64: case DataType::Double: return 8;
  }
  return 0;
}

constexpr bool is_unsigned(DataType t) {
  return t == DataType::Uint8 || t == DataType::Uint32 || t == DataType::Uint64;
}

// Case-insensitive; nullopt for a name nccl-tests does not use.
inline std::optional<DataType> data_type_from_string(std::string_view name) {
  for (DataType t : kDataTypes) {
    const std::string_view known = to_string(t);
    if (known.size() != name.size()) continue;
    bool same = true;
    for (std::size_t i = 0; i < name.size() && same; ++i)
      same = std::tolower(static_cast<unsigned char>(name[i])) == known[i];
    if (same) return t;
  }
  return std::nullopt;
}

// "int8, uint8, ..." for messages.
inline std::string data_type_names() {
  std::string out;
  for (DataType t : kDataTypes) out.append(out.empty() ? "" : ", ").append(to_string(t));
  return out;
}

// Every command's data-type flag: the type, or a one-line DiagError naming the flag and the choices.
inline DataType parse_data_type_flag(const std::string& flag, std::string_view text) {
  if (const std::optional<DataType> t = data_type_from_string(text)) return *t;
  fail_at(flag, 0, "unknown data type '" + std::string(text) + "'", "use one of " + data_type_names());
}

}  // namespace ccforge
