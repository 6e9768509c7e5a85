#include "io/base/sealed_file.h"

#include "io/base/atomic_file.h"
#include "io/base/file_modes.h"
#include "io/base/file_read.h"
#include "io/base/posix_util.h"
#include "io/base/process_info.h"
#include "io/base/regular_file.h"
#include "io/base/sha256.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <vector>

namespace delineate::io {
namespace {

using core::ErrorCode;
using core::makeError;
namespace fs = std::filesystem;

constexpr std::uint8_t kChunkLog2 = 16;
static_assert(kSealChunkBytes == (std::size_t(1) << kChunkLog2));
constexpr const char* kKeyFileHeader = "delineate at-rest key 1\n";

std::string hex(const std::uint8_t* p, std::size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < n; ++i) {
    out += digits[p[i] >> 4];
    out += digits[p[i] & 15];
  }
  return out;
}

std::array<std::uint8_t, 8> keyId(const std::array<std::uint8_t, 32>& key) { return sealKeyId(key, "delineate at-rest key"); }

void chunkNonce(const std::uint8_t* header, std::uint64_t chunk, std::uint8_t nonce[12]) {
  std::memcpy(nonce, header + 16, 12);
  std::uint64_t tail = 0;
  for (int i = 4; i < 12; ++i) tail = (tail << 8) | nonce[i];
  tail += chunk;
  for (int i = 11; i >= 4; --i) {
    nonce[i] = std::uint8_t(tail & 0xff);
    tail >>= 8;
  }
}

struct CipherCtx {
  EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
  ~CipherCtx() { EVP_CIPHER_CTX_free(ctx); }
};

// Decrypts one chunk in place into `out` (size bytes of ciphertext, then its tag at cipher + size).
// `keyed`: whether `ctx` holds the key already (then only the nonce is set: the key schedule and GHASH tables are made
// once per context, not per chunk).
bool openChunk(EVP_CIPHER_CTX* ctx, bool& keyed, const AtRestKey& key, const std::uint8_t* header, std::uint64_t chunk,
               bool last, const std::uint8_t* cipher, std::size_t size, std::uint8_t* out) {
  std::uint8_t nonce[12];
  chunkNonce(header, chunk, nonce);
  const std::uint8_t flag = last ? 1 : 0;
  int n = 0;
  if (!keyed) {
    if (EVP_DecryptInit_ex(ctx, EVP_aes_256_gcm(), nullptr, key.bytes.data(), nullptr) != 1) return false;
    keyed = true;
  }
  if (EVP_DecryptInit_ex(ctx, nullptr, nullptr, nullptr, nonce) != 1) return false;
  if (EVP_DecryptUpdate(ctx, nullptr, &n, header, int(kSealHeaderBytes)) != 1) return false;
  if (EVP_DecryptUpdate(ctx, nullptr, &n, &flag, 1) != 1) return false;
  if (size > 0 && EVP_DecryptUpdate(ctx, out, &n, cipher, int(size)) != 1) return false;
  if (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, int(kSealTagBytes), const_cast<std::uint8_t*>(cipher + size)) != 1)
    return false;
  return EVP_DecryptFinal_ex(ctx, out + size, &n) == 1;
}

core::Error damaged(const std::string& subject, const std::string& why) {
  return makeError(ErrorCode::Corrupt, subject,
                   "the sealed file " + why + " (damaged, cut off or altered; a cached copy is fetched again when it "
                   "is removed)");
}

// Keys other than this user's at-rest key that readers may meet (share content keys), and ids known to be keys this
// process cannot have (with the reason), by id.
struct SealKeyRegistry {
  std::mutex mutex;
  std::map<std::array<std::uint8_t, 8>, std::shared_ptr<const AtRestKey>> keys;
  std::map<std::array<std::uint8_t, 8>, std::string> unreadable;
};
SealKeyRegistry& registry() {
  static SealKeyRegistry r;
  return r;
}

// Checks the header against the keys this process holds: the key, or an error naming the file and why.
core::Result<std::shared_ptr<const AtRestKey>> keyForHeader(const std::uint8_t* header, const std::string& subject) {
  if (!looksSealed(header, kSealHeaderBytes)) return damaged(subject, "does not start with a sealed file's header");
  if (header[28] != kChunkLog2 || header[29] != 0 || header[30] != 0 || header[31] != 0)
    return damaged(subject, "has a header this version does not know");
  std::array<std::uint8_t, 8> id{};
  std::memcpy(id.data(), header + 8, id.size());
  {
    SealKeyRegistry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    if (const auto it = r.keys.find(id); it != r.keys.end()) return it->second;
    if (const auto it = r.unreadable.find(id); it != r.unreadable.end())
      return makeError(ErrorCode::InvalidArgument, subject, "is encrypted under " + it->second);
  }
  auto key = loadAtRestKey(false);
  if (!key)
    return makeError(ErrorCode::InvalidArgument, subject,
                     "is sealed (encrypted at rest, key id " + hex(header + 8, 8) + ") and this user has no at-rest key: " +
                         key.error().describe());
  if (std::memcmp((*key)->id.data(), header + 8, 8) != 0)
    return makeError(ErrorCode::InvalidArgument, subject,
                     "is sealed under another key (id " + hex(header + 8, 8) + "), not this user's (" + (*key)->idHex() +
                         ", " + (*key)->path + "): another user's file, or one sealed before the key was replaced");
  return key;
}

struct KeyCacheEntry {
  dev_t dev = 0;
  ino_t ino = 0;
  std::int64_t mtimeNs = 0;
  std::shared_ptr<const AtRestKey> key;
};

core::Result<std::shared_ptr<const AtRestKey>> readKeyFile(const std::string& path) {
  auto text = readSecretFile(path, 4096, "at-rest key");
  if (!text) return text.error();
  const std::string header = kKeyFileHeader;
  std::string body;
  if (text->compare(0, header.size(), header) == 0) body = text->substr(header.size());
  while (!body.empty() && (body.back() == '\n' || body.back() == '\r')) body.pop_back();
  auto key = std::make_shared<AtRestKey>();
  const auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  bool ok = body.size() == 64;
  for (std::size_t i = 0; ok && i < 32; ++i) {
    const int hi = nibble(body[2 * i]), lo = nibble(body[2 * i + 1]);
    ok = hi >= 0 && lo >= 0;
    if (ok) key->bytes[i] = std::uint8_t(hi * 16 + lo);
  }
  OPENSSL_cleanse(text->data(), text->size());
  OPENSSL_cleanse(body.data(), body.size());
  if (!ok)
    return makeError(ErrorCode::ParseError, path,
                     "is not an at-rest key (\"" + header.substr(0, header.size() - 1) + "\" and 64 hex digits)");
  key->id = keyId(key->bytes);
  key->path = path;
  return std::shared_ptr<const AtRestKey>(std::move(key));
}

core::Status createKeyFile(const std::string& path) {
  std::array<std::uint8_t, 32> bytes{};
  if (RAND_bytes(bytes.data(), int(bytes.size())) != 1)
    return makeError(ErrorCode::WriteFailed, path, "no random bytes for a new at-rest key (OpenSSL's RAND_bytes failed)");
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty())
    if (core::Status s = createFolders(parent.string(), FileAccess::Private); !s) return s;
  std::string text = kKeyFileHeader + hex(bytes.data(), bytes.size()) + "\n";
  AtomicWriteOptions options;
  options.access = FileAccess::Private;
  options.noReplace = true;  // never over a key: what it sealed would be lost
  core::Status s = writeFileAtomically(path, text.data(), text.size(), options);
  OPENSSL_cleanse(text.data(), text.size());
  OPENSSL_cleanse(bytes.data(), bytes.size());
  if (!s && isAlreadyExists(s.error())) return core::Status::success();  // another process made it first: use theirs
  return s;
}

}  // namespace

bool atRestSealingOn() {
  const char* v = std::getenv("DELINEATE_AT_REST");
  return !(v && (std::strcmp(v, "plain") == 0 || std::strcmp(v, "off") == 0));
}

std::string AtRestKey::idHex() const { return hex(id.data(), id.size()); }

std::array<std::uint8_t, 8> sealKeyId(const std::array<std::uint8_t, 32>& key, const char* label) {
  Sha256 h;
  h.update(label, std::strlen(label));
  h.update(key.data(), key.size());
  const auto digest = h.finish();
  std::array<std::uint8_t, 8> id{};
  std::memcpy(id.data(), digest.data(), id.size());
  return id;
}

void registerSealKey(std::shared_ptr<const AtRestKey> key) {
  if (!key) return;
  SealKeyRegistry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.unreadable.erase(key->id);
  r.keys[key->id] = std::move(key);
}

void registerUnreadableSealKey(const std::array<std::uint8_t, 8>& id, const std::string& reason) {
  SealKeyRegistry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (!r.keys.count(id)) r.unreadable[id] = reason;
}

void forgetRegisteredSealKeys() {
  SealKeyRegistry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.keys.clear();
  r.unreadable.clear();
}

std::string atRestKeyPath() {
  if (const char* k = std::getenv("DELINEATE_AT_REST_KEY_FILE"); k && *k) return k;
  return userConfigFolder() + "/identity/at-rest.key";
}

core::Result<std::shared_ptr<const AtRestKey>> loadAtRestKey(bool create) {
  static std::mutex mutex;
  static std::map<std::string, KeyCacheEntry> cache;
  const std::string path = atRestKeyPath();
  std::lock_guard<std::mutex> lock(mutex);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno != ENOENT || !create)
      return makeError(errno == ENOENT ? ErrorCode::NotFound : ErrorCode::ReadFailed, path,
                       errno == ENOENT ? "no at-rest key (it is made the first time Delineate seals a file)"
                                       : "cannot read the at-rest key: " + detail::errnoText(errno));
    if (core::Status s = createKeyFile(path); !s) return s.error();
    if (::stat(path.c_str(), &st) != 0)
      return makeError(ErrorCode::ReadFailed, path, "cannot read the new at-rest key: " + detail::errnoText(errno));
  }
  const std::int64_t mtimeNs = std::int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  auto it = cache.find(path);
  if (it != cache.end() && it->second.dev == st.st_dev && it->second.ino == st.st_ino && it->second.mtimeNs == mtimeNs)
    return it->second.key;
  auto key = readKeyFile(path);
  if (!key) return key.error();
  cache[path] = KeyCacheEntry{st.st_dev, st.st_ino, mtimeNs, *key};
  return *key;
}

std::uint64_t sealedSize(std::uint64_t plainBytes) {
  const std::uint64_t chunks = plainBytes / kSealChunkBytes + 1;
  return kSealHeaderBytes + plainBytes + chunks * kSealTagBytes;
}

std::optional<std::uint64_t> plainSizeOfSealed(std::uint64_t sealedBytes) {
  if (sealedBytes < kSealHeaderBytes + kSealTagBytes) return std::nullopt;
  const std::uint64_t body = sealedBytes - kSealHeaderBytes;
  const std::uint64_t full = body / (kSealChunkBytes + kSealTagBytes), rest = body % (kSealChunkBytes + kSealTagBytes);
  if (rest < kSealTagBytes) return std::nullopt;
  return full * kSealChunkBytes + (rest - kSealTagBytes);
}

bool looksSealed(const void* data, std::size_t size) {
  return size >= sizeof kSealMagic && std::memcmp(data, kSealMagic, sizeof kSealMagic) == 0;
}

Sealer::Sealer(std::shared_ptr<const AtRestKey> key) : m_key(std::move(key)) {
  std::memcpy(m_header.data(), kSealMagic, sizeof kSealMagic);
  std::memcpy(m_header.data() + 8, m_key->id.data(), 8);
  m_nonceOk = RAND_bytes(m_header.data() + 16, 12) == 1;  // refused at the first chunk otherwise
  m_header[28] = kChunkLog2;
  m_ctx = EVP_CIPHER_CTX_new();
  m_pending.reserve(kSealChunkBytes);
}

Sealer::~Sealer() {
  EVP_CIPHER_CTX_free(static_cast<EVP_CIPHER_CTX*>(m_ctx));
  OPENSSL_cleanse(m_pending.data(), m_pending.size());
}

core::Status Sealer::sealChunk(const std::uint8_t* data, std::size_t size, bool last, std::string& out) {
  auto* ctx = static_cast<EVP_CIPHER_CTX*>(m_ctx);
  if (!ctx || !m_nonceOk)
    return makeError(ErrorCode::WriteFailed, m_key->path, "cannot seal: OpenSSL gave no cipher context or random nonce");
  if (!m_headerOut) {
    out.append(reinterpret_cast<const char*>(m_header.data()), m_header.size());
    m_headerOut = true;
  }
  std::uint8_t nonce[12];
  chunkNonce(m_header.data(), m_chunk, nonce);
  const std::uint8_t flag = last ? 1 : 0;
  const std::size_t at = out.size();
  out.resize(at + size + kSealTagBytes);
  auto* dst = reinterpret_cast<std::uint8_t*>(out.data() + at);
  int n = 0;
  if (!m_keyed) {  // the key schedule and GHASH tables once, then only each chunk's nonce
    if (EVP_EncryptInit_ex(ctx, EVP_aes_256_gcm(), nullptr, m_key->bytes.data(), nullptr) != 1)
      return makeError(ErrorCode::WriteFailed, m_key->path, "cannot seal: OpenSSL refused the key");
    m_keyed = true;
  }
  const bool ok = EVP_EncryptInit_ex(ctx, nullptr, nullptr, nullptr, nonce) == 1 &&
                  EVP_EncryptUpdate(ctx, nullptr, &n, m_header.data(), int(m_header.size())) == 1 &&
                  EVP_EncryptUpdate(ctx, nullptr, &n, &flag, 1) == 1 &&
                  (size == 0 || EVP_EncryptUpdate(ctx, dst, &n, data, int(size)) == 1) &&
                  EVP_EncryptFinal_ex(ctx, dst + size, &n) == 1 &&
                  EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, int(kSealTagBytes), dst + size) == 1;
  if (!ok) {
    out.resize(at);
    return makeError(ErrorCode::WriteFailed, m_key->path, "cannot seal: OpenSSL's AES-256-GCM failed");
  }
  ++m_chunk;
  return core::Status::success();
}

core::Status Sealer::add(const void* data, std::size_t size, std::string& out) {
  if (m_finished) return makeError(ErrorCode::WriteFailed, m_key->path, "the sealed file was already finished");
  const auto* p = static_cast<const std::uint8_t*>(data);
  while (size > 0) {
    if (m_pending.empty() && size >= kSealChunkBytes) {  // whole chunks straight from the caller's buffer
      if (core::Status s = sealChunk(p, kSealChunkBytes, false, out); !s) return s;
      p += kSealChunkBytes;
      size -= kSealChunkBytes;
      continue;
    }
    const std::size_t take = std::min(size, kSealChunkBytes - m_pending.size());
    m_pending.append(reinterpret_cast<const char*>(p), take);
    p += take;
    size -= take;
    if (m_pending.size() == kSealChunkBytes) {
      if (core::Status s = sealChunk(reinterpret_cast<const std::uint8_t*>(m_pending.data()), kSealChunkBytes, false, out);
          !s)
        return s;
      m_pending.clear();
    }
  }
  return core::Status::success();
}

core::Status Sealer::finish(std::string& out) {
  if (m_finished) return makeError(ErrorCode::WriteFailed, m_key->path, "the sealed file was already finished");
  m_finished = true;
  core::Status s = sealChunk(reinterpret_cast<const std::uint8_t*>(m_pending.data()), m_pending.size(), true, out);
  OPENSSL_cleanse(m_pending.data(), m_pending.size());
  m_pending.clear();
  return s;
}

core::Result<std::string> unsealBytes(std::string_view sealed, const std::string& subject) {
  if (sealed.size() < kSealHeaderBytes) return damaged(subject, "is shorter than its header");
  const auto* header = reinterpret_cast<const std::uint8_t*>(sealed.data());
  auto key = keyForHeader(header, subject);
  if (!key) return key.error();
  const auto plain = plainSizeOfSealed(sealed.size());
  if (!plain) return damaged(subject, "has a size no sealed file has (" + std::to_string(sealed.size()) + " bytes)");
  std::string out(*plain, '\0');
  CipherCtx ctx;
  bool keyed = false;
  const std::uint64_t chunks = *plain / kSealChunkBytes + 1;
  for (std::uint64_t i = 0; i < chunks; ++i) {
    const bool last = i + 1 == chunks;
    const std::size_t size = last ? std::size_t(*plain % kSealChunkBytes) : kSealChunkBytes;
    const auto* cipher = header + kSealHeaderBytes + i * (kSealChunkBytes + kSealTagBytes);
    if (!ctx.ctx || !openChunk(ctx.ctx, keyed, **key, header, i, last, cipher, size,
                               reinterpret_cast<std::uint8_t*>(out.data()) + i * kSealChunkBytes)) {
      OPENSSL_cleanse(out.data(), out.size());
      return damaged(subject, "fails its authentication at chunk " + std::to_string(i + 1) + " of " +
                                  std::to_string(chunks));
    }
  }
  return out;
}

core::Result<int> unsealToMemoryFile(int fd, const std::string& subject) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return makeError(ErrorCode::ReadFailed, subject, "cannot stat: " + detail::errnoText(errno));
  const auto readAt = [&](std::uint8_t* dst, std::size_t n, std::uint64_t offset) -> bool {
    std::size_t done = 0;
    while (done < n) {
      const ssize_t r = ::pread(fd, dst + done, n - done, off_t(offset + done));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) return false;
      done += std::size_t(r);
    }
    return true;
  };
  std::array<std::uint8_t, kSealHeaderBytes> header{};
  if (std::uint64_t(st.st_size) < kSealHeaderBytes || !readAt(header.data(), header.size(), 0))
    return damaged(subject, "is shorter than its header");
  auto key = keyForHeader(header.data(), subject);
  if (!key) return key.error();
  const auto plain = plainSizeOfSealed(std::uint64_t(st.st_size));
  if (!plain) return damaged(subject, "has a size no sealed file has (" + std::to_string(st.st_size) + " bytes)");
  const int mem = ::memfd_create("delineate-unsealed", MFD_CLOEXEC);
  if (mem < 0) return makeError(ErrorCode::ReadFailed, subject, "cannot make a memory file: " + detail::errnoText(errno));
  detail::FdGuard closer(mem);
  // Chunk by chunk through one buffer, written with write(2): the memory file's pages are allocated in bulk by the
  // kernel (faulting in a shared mapping page by page cost more than the cipher).
  std::vector<std::uint8_t> cipher(kSealChunkBytes + kSealTagBytes), plainChunk(kSealChunkBytes);
  CipherCtx ctx;
  bool keyed = false;
  const std::uint64_t chunks = *plain / kSealChunkBytes + 1;
  for (std::uint64_t i = 0; i < chunks; ++i) {
    const bool last = i + 1 == chunks;
    const std::size_t size = last ? std::size_t(*plain % kSealChunkBytes) : kSealChunkBytes;
    errno = 0;
    if (!readAt(cipher.data(), size + kSealTagBytes, kSealHeaderBytes + i * (kSealChunkBytes + kSealTagBytes)))
      return makeError(ErrorCode::ReadFailed, subject, "cannot read the sealed file: " + detail::errnoText(errno ? errno : EIO));
    if (!ctx.ctx || !openChunk(ctx.ctx, keyed, **key, header.data(), i, last, cipher.data(), size, plainChunk.data())) {
      OPENSSL_cleanse(plainChunk.data(), plainChunk.size());
      return damaged(subject, "fails its authentication at chunk " + std::to_string(i + 1) + " of " + std::to_string(chunks));
    }
    for (std::size_t done = 0; done < size;) {
      const ssize_t n = ::write(mem, plainChunk.data() + done, size - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        OPENSSL_cleanse(plainChunk.data(), plainChunk.size());
        return makeError(ErrorCode::ReadFailed, subject,
                         "cannot hold the unsealed content in memory (" + std::to_string(*plain) + " bytes): " +
                             detail::errnoText(n < 0 ? errno : ENOSPC));
      }
      done += std::size_t(n);
    }
  }
  OPENSSL_cleanse(plainChunk.data(), plainChunk.size());
  if (::lseek(mem, 0, SEEK_SET) != 0)
    return makeError(ErrorCode::ReadFailed, subject, "cannot rewind a memory file: " + detail::errnoText(errno));
  return closer.release();
}

core::Result<std::unique_ptr<SealedReader>> SealedReader::open(int fd, const std::string& subject) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return makeError(ErrorCode::ReadFailed, subject, "cannot stat: " + detail::errnoText(errno));
  std::unique_ptr<SealedReader> r(new SealedReader());
  r->m_fd = fd;
  r->m_subject = subject;
  ssize_t got = 0;
  do got = ::pread(fd, r->m_header.data(), r->m_header.size(), 0);
  while (got < 0 && errno == EINTR);
  if (std::uint64_t(st.st_size) < kSealHeaderBytes || got != ssize_t(kSealHeaderBytes))
    return damaged(subject, "is shorter than its header");
  auto key = keyForHeader(r->m_header.data(), subject);
  if (!key) return key.error();
  r->m_key = *key;
  const auto plain = plainSizeOfSealed(std::uint64_t(st.st_size));
  if (!plain) return damaged(subject, "has a size no sealed file has (" + std::to_string(st.st_size) + " bytes)");
  r->m_plainSize = *plain;
  r->m_chunks = *plain / kSealChunkBytes + 1;
  r->m_cipher.resize(kSealChunkBytes + kSealTagBytes);
  r->m_plain.resize(kSealChunkBytes);
  r->m_ctx = EVP_CIPHER_CTX_new();
  if (!r->m_ctx) return makeError(ErrorCode::ReadFailed, subject, "OpenSSL gave no cipher context");
  return r;
}

SealedReader::~SealedReader() {
  EVP_CIPHER_CTX_free(static_cast<EVP_CIPHER_CTX*>(m_ctx));
  OPENSSL_cleanse(m_plain.data(), m_plain.size());
}

core::Status SealedReader::decryptChunk(std::uint64_t chunk, std::uint8_t* out) {
  const bool last = chunk + 1 == m_chunks;
  const std::size_t size = last ? std::size_t(m_plainSize % kSealChunkBytes) : kSealChunkBytes;
  const std::uint64_t at = kSealHeaderBytes + chunk * (kSealChunkBytes + kSealTagBytes);
  for (std::size_t done = 0; done < size + kSealTagBytes;) {
    const ssize_t n = ::pread(m_fd, m_cipher.data() + done, size + kSealTagBytes - done, off_t(at + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      return makeError(ErrorCode::ReadFailed, m_subject,
                       "cannot read the sealed file: " + (n == 0 ? std::string("it shrank") : detail::errnoText(errno)));
    done += std::size_t(n);
  }
  if (!openChunk(static_cast<EVP_CIPHER_CTX*>(m_ctx), m_keyed, *m_key, m_header.data(), chunk, last, m_cipher.data(), size, out))
    return damaged(m_subject, "fails its authentication at chunk " + std::to_string(chunk + 1) + " of " +
                                  std::to_string(m_chunks));
  return core::Status::success();
}

core::Result<std::size_t> SealedReader::readAt(std::uint64_t offset, void* dst, std::size_t n) {
  if (offset >= m_plainSize) return std::size_t(0);
  n = std::size_t(std::min<std::uint64_t>(n, m_plainSize - offset));
  auto* out = static_cast<std::uint8_t*>(dst);
  std::size_t done = 0;
  while (done < n) {
    const std::uint64_t pos = offset + done;
    const std::uint64_t chunk = pos / kSealChunkBytes;
    const std::size_t within = std::size_t(pos % kSealChunkBytes);
    const bool last = chunk + 1 == m_chunks;
    const std::size_t chunkSize = last ? std::size_t(m_plainSize % kSealChunkBytes) : kSealChunkBytes;
    const std::size_t take = std::min(n - done, chunkSize - within);
    if (within == 0 && take == chunkSize && chunk != m_cached) {
      // A whole chunk: decrypted where it goes. The buffer holds no verified bytes until its tag checked.
      if (core::Status s = decryptChunk(chunk, out + done); !s) {
        OPENSSL_cleanse(out + done, take);
        return s.error();
      }
    } else {
      if (chunk != m_cached) {
        m_cached = ~std::uint64_t(0);
        if (core::Status s = decryptChunk(chunk, m_plain.data()); !s) return s.error();
        m_cached = chunk;
      }
      std::memcpy(out + done, m_plain.data() + within, take);
    }
    done += take;
  }
  return n;
}

bool isSealedFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  char magic[sizeof kSealMagic];
  const bool sealed = ::pread(fd, magic, sizeof magic, 0) == ssize_t(sizeof magic) && looksSealed(magic, sizeof magic);
  ::close(fd);
  return sealed;
}

core::Result<std::string> contentSha256(const std::string& path) {
  // Chunk by chunk (RandomAccessFile decrypts what it reads): a sealed checkpoint of 830 MB is never whole in memory.
  auto file = RandomAccessFile::open(path, "file");
  if (!file) return file.error();
  Sha256 hash;
  std::vector<std::uint8_t> buffer(std::size_t(1) << 20);
  for (std::uint64_t offset = 0;;) {
    auto n = file->readAt(offset, buffer.data(), buffer.size());
    if (!n) return n.error();
    if (*n == 0) break;
    hash.update(buffer.data(), *n);
    offset += *n;
  }
  return toHex(hash.finish());
}

}  // namespace delineate::io
