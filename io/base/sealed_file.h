#pragma once
// Patient data sealed at rest where Delineate keeps it on this machine (issue 47, item 2): AES-256-GCM through
// OpenSSL's EVP (AES-NI and carry-less multiply where the CPU has them), under one key per user.
//
// Who writes sealed files: io, for FileAccess::Sealed (io/base/file_modes.h): fetched series and datasets, the
// autosave journal. Who reads them: every io reader, transparently (openRegularFile, readWholeFile and the DICOM
// readers recognise the format by its first bytes), so a sealed file is opened exactly as the plain one would be,
// by the user who holds the key.
//
// The format ("DLNSEAL1"), chunked so that files of any size stream through without being held whole:
//   header, 32 bytes: "DLNSEAL1", the key's id (8 bytes), a random 96-bit nonce base, log2 of the chunk size (16),
//                     three zero bytes
//   chunks: the plaintext in pieces of 64 KiB, the last one shorter (possibly empty), each encrypted and followed by
//           its 16-byte tag. Chunk i's nonce is the base with i added (big-endian) to its last 8 bytes; its additional
//           data is the whole header and one byte that is 1 for the last chunk, 0 otherwise.
// So: any changed byte (header included) fails the chunk's tag; chunks cannot be reordered (nonce) nor dropped from
// the end (the last one's flag), and a file cut at a chunk boundary ends without a last chunk; the sizes follow from
// the file's size alone. 64 KiB chunks let a reader decrypt only what it reads (SealedReader): indexing a DICOM
// folder reads each file's header, one chunk of a CT slice's eight. A random nonce base per file: 2^-32 odds of a collision after 2^32 files, far beyond a
// workstation's cache.
//
// The key: 32 random bytes in an owner-only file, $DELINEATE_AT_REST_KEY_FILE or
// <userConfigFolder>/identity/at-rest.key, made (0600, in a 0700 folder) the first time something is sealed and
// never written over. Its id is the first 8 bytes of SHA-256("delineate at-rest key" || key): a file sealed under
// another key (a lost key, another user's file) is named as such rather than as damaged.
//
// What it protects and against whom: README "Privacy and security".

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"

namespace delineate::io {

inline constexpr std::size_t kSealHeaderBytes = 32;
inline constexpr std::size_t kSealTagBytes = 16;
inline constexpr std::size_t kSealChunkBytes = std::size_t(1) << 16;
inline constexpr char kSealMagic[8] = {'D', 'L', 'N', 'S', 'E', 'A', 'L', '1'};

// Whether io seals what it writes as FileAccess::Sealed: yes unless $DELINEATE_AT_REST is "plain" (a machine whose
// disk is encrypted already, or a benchmark's comparison). Read at each call.
bool atRestSealingOn();

struct AtRestKey {
  std::array<std::uint8_t, 32> bytes{};
  std::array<std::uint8_t, 8> id{};
  std::string path;  // the key file
  std::string idHex() const;
};

// The id of a key: the first 8 bytes of SHA-256(label || key) ("delineate at-rest key" for this user's key,
// "delineate share key" for a share's content key).
std::array<std::uint8_t, 8> sealKeyId(const std::array<std::uint8_t, 32>& key, const char* label);
// Other keys readers may meet besides this user's at-rest key: a share's content keys (io/trust/content_key.h), made
// known by the share room when this user can unwrap them. Readers find a file's key by the id in its header, here
// first. `registerUnreadableSealKey`: an id known to be a key this user cannot have, and why (a sentence completing
// "is encrypted under ..."), so a file sealed under it is named as such rather than as another user's file.
// Process-wide; `forgetRegisteredSealKeys` is for tests that play several users in one process.
void registerSealKey(std::shared_ptr<const AtRestKey> key);
void registerUnreadableSealKey(const std::array<std::uint8_t, 8>& id, const std::string& reason);
void forgetRegisteredSealKeys();

// Where this user's at-rest key is kept ($DELINEATE_AT_REST_KEY_FILE, else <userConfigFolder>/identity/at-rest.key).
std::string atRestKeyPath();
// This user's key, read once per process and path (and again when the file changes). `create`: made when missing
// (what a writer asks); otherwise NotFound naming the file (what a reader asks: nothing of ours is sealed without it).
// A key file that its group or others may read is refused, naming the chmod that fixes it.
core::Result<std::shared_ptr<const AtRestKey>> loadAtRestKey(bool create);

// The sealed size of `plainBytes` bytes of content, and back (nullopt: no sealed file has this size).
std::uint64_t sealedSize(std::uint64_t plainBytes);
std::optional<std::uint64_t> plainSizeOfSealed(std::uint64_t sealedBytes);

// Whether these first bytes of a file are a sealed file's ("DLNSEAL1").
bool looksSealed(const void* data, std::size_t size);

// Seals a stream: the header, then each chunk once it is complete, appended to `out` for the caller to write.
class Sealer {
 public:
  explicit Sealer(std::shared_ptr<const AtRestKey> key);
  ~Sealer();
  Sealer(const Sealer&) = delete;
  Sealer& operator=(const Sealer&) = delete;
  core::Status add(const void* data, std::size_t size, std::string& out);
  // The last chunk; nothing may be added afterwards.
  core::Status finish(std::string& out);

 private:
  core::Status sealChunk(const std::uint8_t* data, std::size_t size, bool last, std::string& out);
  std::shared_ptr<const AtRestKey> m_key;
  std::array<std::uint8_t, kSealHeaderBytes> m_header{};
  std::string m_pending;  // plaintext of the chunk being filled
  std::uint64_t m_chunk = 0;
  bool m_headerOut = false, m_finished = false, m_nonceOk = false, m_keyed = false;
  void* m_ctx = nullptr;  // EVP_CIPHER_CTX
};

// The content of a sealed file given whole (`subject` names it in errors): Corrupt for a damaged or cut-off file,
// InvalidArgument for one sealed under another key.
core::Result<std::string> unsealBytes(std::string_view sealed, const std::string& subject);
// The plaintext of the sealed file open at `fd` (read with pread; the descriptor is not closed) in a new anonymous
// memory file (memfd, close-on-exec, read position 0): what every reader of a path or a descriptor can read as if it
// were the file. The plaintext never touches a disk (only swap, like any of the process's memory).
core::Result<int> unsealToMemoryFile(int fd, const std::string& subject);
// Random access to a sealed file's content: each chunk read is decrypted and authenticated when first needed (the
// last one read is kept), straight into the caller's buffer where a whole chunk is asked for. For readers that read
// parts of a file (the DICOM pre-scan and pixel reads). Not thread-safe; the descriptor is not owned.
class SealedReader {
 public:
  // Checks the header and the key (errors as unsealBytes) from the file open at `fd`.
  static core::Result<std::unique_ptr<SealedReader>> open(int fd, const std::string& subject);
  ~SealedReader();
  SealedReader(const SealedReader&) = delete;
  SealedReader& operator=(const SealedReader&) = delete;
  std::uint64_t size() const { return m_plainSize; }
  // Up to n bytes at offset (fewer only at the end); Corrupt naming the file for a chunk that fails its tag.
  core::Result<std::size_t> readAt(std::uint64_t offset, void* dst, std::size_t n);

 private:
  SealedReader() = default;
  core::Status decryptChunk(std::uint64_t chunk, std::uint8_t* out);
  int m_fd = -1;
  std::string m_subject;
  std::shared_ptr<const AtRestKey> m_key;
  std::array<std::uint8_t, kSealHeaderBytes> m_header{};
  std::uint64_t m_plainSize = 0, m_chunks = 0;
  std::vector<std::uint8_t> m_cipher, m_plain;  // one chunk each
  std::uint64_t m_cached = ~std::uint64_t(0);   // the chunk m_plain holds
  void* m_ctx = nullptr;                        // EVP_CIPHER_CTX
  bool m_keyed = false;                         // m_ctx holds the key
};

// Whether the file at `path` is sealed (its first bytes); false when it cannot be read.
bool isSealedFile(const std::string& path);

// SHA-256 (hex) of a file's content as io's readers see it: a sealed file's plaintext, else its bytes.
core::Result<std::string> contentSha256(const std::string& path);

}  // namespace delineate::io
