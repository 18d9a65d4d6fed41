#include "core/gzip_stream.hpp"

#include <zlib.h>

#include <new>
#include <stdexcept>
#include <streambuf>
#include <vector>

namespace simgpt {

// Collects what is written, deflates it into the sink 256 KiB at a time.
class GzipStream::Buffer : public std::streambuf {
public:
  Buffer(std::ostream& sink, int level) : sink_(sink), in_(256 * 1024), out_(256 * 1024) {
    // windowBits 15 + 16: a gzip wrapper instead of zlib's; memLevel 8, zlib's default.
    const int status = deflateInit2(&z_, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    if (status == Z_MEM_ERROR)
      throw std::bad_alloc();
    if (status != Z_OK)
      throw std::logic_error("deflateInit2 failed");
    header_.os = 255; // unknown: the same header whatever the machine
    deflateSetHeader(&z_, &header_);
    setp(in_.data(), in_.data() + in_.size());
  }
  ~Buffer() override { deflateEnd(&z_); }

  void finish() { deflate_pending(Z_FINISH); }

protected:
  int_type overflow(int_type c) override {
    deflate_pending(Z_NO_FLUSH);
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }

private:
  // Deflates what was written since the last call; Z_FINISH ends the stream.
  void deflate_pending(int flush) {
    z_.next_in = reinterpret_cast<Bytef*>(pbase());
    z_.avail_in = static_cast<uInt>(pptr() - pbase());
    int status = Z_OK;
    do {
      z_.next_out = reinterpret_cast<Bytef*>(out_.data());
      z_.avail_out = static_cast<uInt>(out_.size());
      status = deflate(&z_, flush);
      if (status == Z_STREAM_ERROR)
        throw std::logic_error("deflate failed");
      sink_.write(out_.data(), static_cast<std::streamsize>(out_.size() - z_.avail_out));
    } while (z_.avail_out == 0 || (flush == Z_FINISH && status != Z_STREAM_END));
    setp(in_.data(), in_.data() + in_.size());
  }

  std::ostream& sink_;
  std::vector<char> in_, out_;
  z_stream z_{};
  gz_header header_{};
};

GzipStream::GzipStream(std::ostream& sink, int level)
    : buffer_(std::make_unique<Buffer>(sink, level)), stream_(std::make_unique<std::ostream>(buffer_.get())) {}

GzipStream::~GzipStream() = default;

std::ostream& GzipStream::stream() { return *stream_; }

void GzipStream::finish() {
  stream_->flush();
  buffer_->finish();
}

} // namespace simgpt
