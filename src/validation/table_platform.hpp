// The platform file a validation table runs on, found among the data folders.
#pragma once

#include "simgpt/validation/validation.hpp"

#include <string>

namespace simgpt {

// platforms/<table.platform> of the first data folder that has it (a user's folder may add a
// platform with its table). Throws InputError naming the table's `platform` when none has it.
std::string table_platform(const ValidationTable& table, const DataPaths& data);

} // namespace simgpt
