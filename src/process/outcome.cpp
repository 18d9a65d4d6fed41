#include "process/outcome.hpp"

#include "process/child_process.hpp"
#include "simgpt/core/error.hpp"

#include <exception>
#include <new>
#include <string>

namespace simgpt {

nlohmann::ordered_json outcome_of(const std::function<nlohmann::ordered_json()>& simulate) {
  try {
    return {{"ok", simulate()}};
  } catch (const InputError& e) {
    return {{"input_error", e.message()}, {"where", e.where()}};
  } catch (const std::bad_alloc&) {
    return {{"error", "the simulation ran out of memory"}, {"out_of_memory", true}};
  } catch (const std::exception& e) {
    return {{"error", e.what()}};
  }
}

nlohmann::ordered_json result_of(const nlohmann::ordered_json& outcome) {
  if (!outcome.is_object())
    throw ProcessFailure("the simulation process printed an unreadable result");
  if (outcome.contains("input_error"))
    throw InputError(outcome.value("where", ""), outcome["input_error"].get<std::string>());
  if (outcome.contains("error") && outcome.value("out_of_memory", false))
    throw ProcessOutOfMemory(outcome["error"].get<std::string>());
  if (outcome.contains("error"))
    throw std::runtime_error(outcome["error"].get<std::string>());
  if (!outcome.contains("ok"))
    throw ProcessFailure("the simulation process printed an unreadable result");
  return outcome["ok"];
}

} // namespace simgpt
