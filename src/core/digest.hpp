// Content digests of the files a result was made from, so that a report says which platform,
// profile and GPU catalog it used, whatever their names.
#pragma once

#include <string>
#include <string_view>

namespace simgpt {

// SHA-256 of `bytes`, as 64 lowercase hexadecimal digits.
std::string sha256_hex(std::string_view bytes);

// "sha256:" and the digest of the file's contents; throws InputError naming `path` when it cannot
// be read.
std::string file_digest(const std::string& path);

} // namespace simgpt
