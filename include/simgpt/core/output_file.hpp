// Outputs written whole or not at all: every file simgpt writes (a plot, a platform, a plan's or
// a merged sweep's CSV, a trace, a fitted profile) goes to a temporary file beside its target and
// is renamed over it only after a checked write, flush and close. An interrupted or failed write
// (a full disk, a read-only place) leaves the earlier file as it was.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace simgpt {

// Throws InputError naming `option` and the path before any work is done when `path` cannot be
// an output: empty, a directory, a FIFO, device or socket (opening a FIFO blocks until a reader
// comes; /dev/full swallows nothing), a read-only file, a file in a missing or read-only
// directory, or one of `inputs` (the same file by device and inode, whatever the spelling:
// writing it would destroy what the command reads).
void check_output_path(const std::string& path, const std::string& option,
                       const std::vector<std::string>& inputs = {});

// One output file in the making. Construction checks the path (check_output_path) and creates
// the temporary file; commit() renames it over the target; destruction without commit() removes
// it.
class OutputFile {
public:
  OutputFile(std::string path, std::string option, const std::vector<std::string>& inputs = {});
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  void write(std::string_view text); // throws InputError at the first failed write
  // A stream onto the file, for writers of std::ostream (a trace): buffered, its writes through
  // write(); after a failed one the stream is bad and commit() throws that failure.
  std::ostream& stream();
  void commit(); // flush, close, rename; throws InputError when one fails
  const std::string& path() const { return path_; }

private:
  class Buffer;
  [[noreturn]] void fail(const std::string& what);
  std::string path_, option_, temporary_;
  int fd_ = -1;
  std::unique_ptr<Buffer> buffer_;
  std::unique_ptr<std::ostream> stream_;
};

// `text` as the whole content of `path` (OutputFile's write and commit).
void write_output_file(const std::string& path, std::string_view text, const std::string& option,
                       const std::vector<std::string>& inputs = {});

// Flushes standard output; throws InputError("stdout", ...) when what was printed did not all
// reach it (a closed pipe, /dev/full): a result lost on the way is a failure, not exit 0.
void flush_stdout();

} // namespace simgpt
