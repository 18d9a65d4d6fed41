// gzip (RFC 1952) through zlib, for outputs named *.gz (a trace). The header names no file and
// has a zero modification time (zlib's gzip wrapper writes neither unless asked) and an
// "unknown" operating system, so that the same bytes in give the same file out on every machine.
#pragma once

#include <memory>
#include <ostream>

namespace simgpt {

class GzipStream {
public:
  // Compresses what is written to stream() into `sink`, at zlib's `level` (1 fastest to 9 smallest).
  explicit GzipStream(std::ostream& sink, int level = 6);
  ~GzipStream();
  GzipStream(const GzipStream&) = delete;
  GzipStream& operator=(const GzipStream&) = delete;

  std::ostream& stream();
  // Compresses what is left and writes the trailer (CRC and length): the file is whole after it.
  void finish();

private:
  class Buffer;
  std::unique_ptr<Buffer> buffer_;
  std::unique_ptr<std::ostream> stream_;
};

} // namespace simgpt
