// SHA-256 from OpenSSL's libcrypto (EVP_Digest): the digest every tool can recompute
// (`sha256sum FILE`).
#include "core/digest.hpp"

#include "simgpt/core/error.hpp"

#include <openssl/evp.h>

#include <fmt/format.h>

#include <array>
#include <fstream>
#include <sstream>

namespace simgpt {

std::string sha256_hex(std::string_view bytes) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest.data(), &length, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("SHA-256 failed in libcrypto");
  std::string hex;
  hex.reserve(2 * length);
  for (unsigned int i = 0; i < length; ++i)
    hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

std::string file_digest(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (!in && !in.eof())
    throw InputError(echo(path), "cannot be read to take its digest");
  return "sha256:" + sha256_hex(bytes.str());
}

} // namespace simgpt
