// Reading a measured table (validation/tables/*.yaml) and checking it: every key, metric and
// flag known, every value in range, ids that join into unambiguous "table/row" names.
#pragma once

#include "simgpt/validation/validation.hpp"

#include <string>

namespace simgpt {

// One table file, whatever its name; messages name `path` as given. load_validation_tables
// reads every .yaml file of a directory with it, and refuses two tables of one id.
ValidationTable load_validation_table(const std::string& path);

} // namespace simgpt
