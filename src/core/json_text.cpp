#include "core/json_text.hpp"

namespace simgpt {

std::string json_text(const nlohmann::ordered_json& j) {
  return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

} // namespace simgpt
