#include "tool_outputs.hpp"

#include "text_input.hpp"

#include <fmt/core.h>

#include <cctype>
#include <charconv>
#include <optional>
#include <string_view>

namespace ccforge::topo {
namespace {

// nvidia-smi's product names for the parts ccforge models ("NVIDIA H100 80GB HBM3" is the SXM5 board,
// "NVIDIA A100-SXM4-80GB", "NVIDIA A100 80GB PCIe", "Tesla V100-SXM2-32GB"); the first rule whose words
// all occur wins, and a rule without a model refuses a part that merely shares a name (H100 NVL).
struct ProductRule {
  std::vector<std::string_view> words;
  const char* model;  // nullptr: not a part ccforge models
};
const std::vector<ProductRule>& product_rules() {
  static const std::vector<ProductRule> rules{
      {{"H100", "NVL"}, nullptr},       {{"H100", "PCIe"}, "H100 PCIe"}, {{"H100"}, "H100 SXM"},
      {{"A100", "PCIe"}, "A100 PCIe"},  {{"A100"}, "A100 SXM"},         {{"V100", "SXM2"}, "V100 SXM2"},
      {{"B200"}, "B200"},               {{"MI300X"}, "MI300X"},
  };
  return rules;
}

const GpuModel* model_for_product(std::string_view product) {
  for (const ProductRule& rule : product_rules()) {
    bool all = true;
    for (std::string_view w : rule.words) all = all && product.find(w) != std::string_view::npos;
    if (all) return rule.model ? find_gpu_model(rule.model) : nullptr;
  }
  return nullptr;
}

// "key : value" of an nvidia-smi -q or ibv_devinfo line, when its key is `key`.
std::optional<std::string_view> value_of(std::string_view line, std::string_view key, char separator) {
  line = trim(line);
  if (line.substr(0, key.size()) != key) return std::nullopt;
  const std::size_t sep = line.find(separator, key.size());
  if (sep == std::string_view::npos || !trim(line.substr(key.size(), sep - key.size())).empty()) return std::nullopt;
  return trim(line.substr(sep + 1));
}

std::optional<double> leading_number(std::string_view text) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end == text.data() || !(value > 0)) return std::nullopt;
  return value;
}

}  // namespace

GpuQuery read_gpu_query(const std::filesystem::path& path) {
  const TextInput in(path);
  GpuQuery q;
  q.file = in.file();
  for (int n = 1; n <= in.size(); ++n) {
    const std::string_view line = trim(in.line(n));
    // "GPU 00000000:18:00.0": nvidia-smi prints an 8-digit domain; NCCL's bus ids keep the last 4.
    if (line.substr(0, 4) == "GPU " && line.size() == 20 && line[12] == ':' && line[15] == ':' && line[18] == '.') {
      q.busids.push_back(std::string(line.substr(8)));
      for (char& c : q.busids.back()) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    const auto product = value_of(line, "Product Name", ':');
    if (!product) continue;
    const GpuModel* model = model_for_product(*product);
    if (!model) {
      in.fail(n, fmt::format("ccforge does not model the GPU '{}'", *product), "pass --gpu-model with one of: " + known_gpu_models());
    }
    if (q.model && model != q.model) {
      in.fail(n, fmt::format("GPUs of two models, {} and {}", q.model->name, model->name), "import a node whose GPUs are alike");
    }
    if (!q.model) q.first_line = n;
    q.model = model;
    q.product = std::string(*product);
  }
  if (!q.model) in.fail(in.size(), "no 'Product Name' line", "give the output of nvidia-smi -q from the same node");
  return q;
}

std::map<std::string, NicRate> read_nic_rates(const std::filesystem::path& path) {
  const TextInput in(path);
  std::map<std::string, NicRate> rates;
  std::string device;
  double width = 0;  // of the current port, 0 until its active_width line
  for (int n = 1; n <= in.size(); ++n) {
    const std::string_view line = in.line(n);
    if (const auto hca = value_of(line, "hca_id", ':')) {  // ibv_devinfo
      device = std::string(*hca);
      width = 0;
    } else if (trim(line).substr(0, 4) == "CA '" && trim(line).back() == '\'') {  // ibstat
      const std::string_view t = trim(line);
      device = std::string(t.substr(4, t.size() - 5));
      width = 0;
    }
    if (device.empty() || rates.contains(device)) continue;  // the first port of each device
    if (const auto w = value_of(line, "active_width", ':')) {
      width = leading_number(*w).value_or(0);  // "4X (2)"
      if (width == 0) in.fail(n, fmt::format("unreadable active_width '{}'", *w), "give ibv_devinfo -v output as printed");
    } else if (const auto s = value_of(line, "active_speed", ':')) {
      if (s->substr(0, 13) == "invalid speed") continue;  // a port that is down has no rate: the device gets none
      const auto lane = leading_number(*s);  // "25.0 Gbps (32)"
      if (!lane || width == 0) in.fail(n, fmt::format("unreadable active_speed '{}'", *s), "give ibv_devinfo -v output as printed");
      rates[device] = NicRate{*lane * width, n};
    } else if (const auto r = value_of(line, "Rate", ':')) {
      const auto rate = leading_number(*r);  // ibstat: "Rate: 400"
      if (!rate) in.fail(n, fmt::format("unreadable Rate '{}'", *r), "give ibstat output as printed");
      rates[device] = NicRate{*rate, n};
    }
  }
  if (rates.empty()) {
    in.fail(in.size(), "no port rate found", "give the output of ibv_devinfo -v (active_width, active_speed) or ibstat (Rate)");
  }
  return rates;
}

}  // namespace ccforge::topo
