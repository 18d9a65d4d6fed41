// SimGrid 3.32 refuses many malformed platforms not with an exception but with xbt_assert or
// xbt_die: a CRITICAL log message, a backtrace and abort() (a link, host or route declared twice,
// a <peer> outside a Vivaldi zone, a removed tag such as <include>, an inconsistent cluster, a
// star or fat-tree route that does not exist...). Checking the file for all of them before
// SimGrid reads it would mean a second parser of SimGrid's XML: system/platform_xml_check refuses
// the common ones with a clearer message, and the rest are caught here.
#pragma once

#include <functional>
#include <string>

namespace simgpt {

// Runs `fn`, SimGrid reading or routing the platform file `path`. If SimGrid aborts with a
// CRITICAL message meanwhile, throws InputError(path, "not a valid SimGrid platform: MESSAGE")
// instead (after a jump out of abort(): whatever SimGrid held is left as it was, so the engine must
// not be used, nor destroyed, afterwards). An abort SimGrid did not announce (not its own refusal)
// goes to the handler that was there before. SimGrid's backtrace is not printed meanwhile; other
// CRITICAL messages are printed after `fn` returns. Not for concurrent use (one engine per process).
void catch_simgrid_abort(const std::string& path, const std::function<void()>& fn);

} // namespace simgpt
