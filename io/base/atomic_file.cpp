#include "io/base/atomic_file.h"
#include "io/base/posix_util.h"

#include "io/base/sealed_file.h"
#include "io/base/sha256.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <utility>

namespace delineate::io {
namespace {

// Adds the seconds of its scope to *sink (when sink is set).
class PhaseTimer {
 public:
  explicit PhaseTimer(double* sink) : m_sink(sink) {
    if (m_sink) m_start = std::chrono::steady_clock::now();
  }
  ~PhaseTimer() {
    if (m_sink) *m_sink += std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
  }
  PhaseTimer(const PhaseTimer&) = delete;
  PhaseTimer& operator=(const PhaseTimer&) = delete;

 private:
  double* m_sink;
  std::chrono::steady_clock::time_point m_start;
};

using core::ErrorCode;
using detail::errnoText;
using detail::randomHex;
using detail::syncFolder;
using core::makeError;

// Splits "dir/name" at the last '/'; a bare name lives in ".".
std::pair<std::string, std::string> splitPath(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return {".", path};
  if (slash == 0) return {"/", path.substr(1)};
  return {path.substr(0, slash), path.substr(slash + 1)};
}



}  // namespace

core::Result<AtomicFileWriter> AtomicFileWriter::create(const std::string& targetPath,
                                                        const AtomicWriteOptions& options) {
  if (targetPath.empty() || targetPath.back() == '/')
    return makeError(ErrorCode::InvalidArgument, targetPath, "not a file path");
  const auto [folder, name] = splitPath(targetPath);

  struct stat targetStat {};
  const bool targetExists = ::stat(targetPath.c_str(), &targetStat) == 0;
  if (targetExists && S_ISDIR(targetStat.st_mode))
    return makeError(ErrorCode::WriteFailed, targetPath, "the target is a folder");

  if (targetExists && options.noReplace)
    return makeError(ErrorCode::WriteFailed, targetPath, kAlreadyExistsDetail);

  AtomicFileWriter w;
  w.m_target = targetPath;
  w.m_options = options;
  if (options.verifyReadBack) w.m_hash = std::make_unique<Sha256>();
  if (options.sealKey) {
    w.m_sealer = std::make_unique<Sealer>(options.sealKey);
  } else if (options.access == FileAccess::Sealed && atRestSealingOn()) {
    auto key = loadAtRestKey(true);
    if (!key)
      return makeError(ErrorCode::WriteFailed, targetPath,
                       "cannot seal it (patient data kept on this machine is encrypted at rest): " + key.error().describe());
    w.m_sealer = std::make_unique<Sealer>(std::move(*key));
  }
  if (w.m_sealer && w.m_hash) w.m_contentHash = std::make_unique<Sha256>();
  for (int attempt = 0; attempt < 16; ++attempt) {
    std::string temp = (folder == "/" ? "" : folder) + "/." + name + ".tmp-" + randomHex(8);
    // Never readable by others (io/base/file_modes.h): a Personal file is 0640 narrowed by the umask; an exact
    // mode starts at 0600 and is set by fchmod before a byte is written, so no umask widens it.
    const FileAccess access = options.access;
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
                          modeIsExact(access) ? mode_t(0600) : fileModeFor(access));
    if (fd >= 0) {
      w.m_fd = fd;
      w.m_temp = std::move(temp);
      // Best effort, like the mode: on a shared folder the group decides who else may read the labels. Order
      // matters: chown may clear set-id bits, so the mode goes last.
      if (targetExists && !isPrivateAccess(access)) (void)::fchown(fd, static_cast<uid_t>(-1), targetStat.st_gid);
      if (targetExists && access == FileAccess::Personal)
        (void)::fchmod(fd, targetStat.st_mode & 07777);  // some shares ignore modes
      else
        applyFileMode(fd, access);
      return w;
    }
    if (errno != EEXIST) {
      const int e = errno;
      return makeError(ErrorCode::WriteFailed, targetPath,
                       "cannot create a temporary file in folder '" + folder + "': " + errnoText(e));
    }
  }
  return makeError(ErrorCode::WriteFailed, targetPath, "cannot find a free temporary file name in '" + folder + "'");
}

AtomicFileWriter::AtomicFileWriter(AtomicFileWriter&& other) noexcept
    : m_target(std::move(other.m_target)),
      m_temp(std::move(other.m_temp)),
      m_fd(other.m_fd),
      m_done(other.m_done),
      m_written(other.m_written),
      m_writebackStarted(other.m_writebackStarted),
      m_options(other.m_options),
      m_hash(std::move(other.m_hash)),
      m_hashHex(std::move(other.m_hashHex)),
      m_contentHash(std::move(other.m_contentHash)),
      m_rawHashHex(std::move(other.m_rawHashHex)),
      m_sealer(std::move(other.m_sealer)),
      m_sealed(std::move(other.m_sealed)) {
  other.m_fd = -1;
  other.m_done = true;
}

AtomicFileWriter& AtomicFileWriter::operator=(AtomicFileWriter&& other) noexcept {
  if (this != &other) {
    discard();
    m_target = std::move(other.m_target);
    m_temp = std::move(other.m_temp);
    m_fd = other.m_fd;
    m_done = other.m_done;
    m_written = other.m_written;
    m_writebackStarted = other.m_writebackStarted;
    m_options = other.m_options;
    m_hash = std::move(other.m_hash);
    m_hashHex = std::move(other.m_hashHex);
    m_contentHash = std::move(other.m_contentHash);
    m_rawHashHex = std::move(other.m_rawHashHex);
    m_sealer = std::move(other.m_sealer);
    m_sealed = std::move(other.m_sealed);
    other.m_fd = -1;
    other.m_done = true;
  }
  return *this;
}

AtomicFileWriter::~AtomicFileWriter() { discard(); }

void AtomicFileWriter::discard() {
  if (m_fd >= 0) {
    ::close(m_fd);
    m_fd = -1;
  }
  if (!m_done && !m_temp.empty()) ::unlink(m_temp.c_str());
  m_done = true;
}

core::Status AtomicFileWriter::fail(const std::string& what, int errnoValue) {
  discard();
  return makeError(ErrorCode::WriteFailed, m_target, what + ": " + errnoText(errnoValue));
}

core::Status AtomicFileWriter::write(const void* data, std::size_t size) {
  if (!m_sealer) return writeRaw(data, size);
  if (m_done || m_fd < 0) return makeError(ErrorCode::WriteFailed, m_target, "the file was already committed or discarded");
  if (m_contentHash) m_contentHash->update(data, size);
  if (core::Status s = m_sealer->add(data, size, m_sealed); !s) {
    discard();
    return makeError(ErrorCode::WriteFailed, m_target, s.error().detail);
  }
  if (m_sealed.size() < (std::size_t(1) << 20)) return core::Status::success();  // written in pieces of about 1 MiB
  core::Status s = writeRaw(m_sealed.data(), m_sealed.size());
  m_sealed.clear();
  return s;
}

core::Status AtomicFileWriter::writeRaw(const void* data, std::size_t size) {
  if (m_done || m_fd < 0) return makeError(ErrorCode::WriteFailed, m_target, "the file was already committed or discarded");
  const PhaseTimer timer(m_options.times ? &m_options.times->write : nullptr);
  if (m_options.times) m_options.times->bytes += size;
  const auto* p = static_cast<const unsigned char*>(data);
  if (m_hash) m_hash->update(data, size);
  while (size > 0) {
    // Large single writes are split: Linux caps one write at about 2 GiB anyway.
    const std::size_t chunk = size < (std::size_t(1) << 30) ? size : (std::size_t(1) << 30);
    const ssize_t n = ::write(m_fd, p, chunk);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail("cannot write the temporary file", errno);
    }
    if (n == 0) return fail("cannot write the temporary file", EIO);
    p += n;
    size -= static_cast<std::size_t>(n);
    m_written += static_cast<std::uint64_t>(n);
  }
#ifdef __linux__
  // Every 8 MiB the kernel is asked to start writing what came so far (without waiting for it), so a large file
  // goes to disk while the writer is still producing it and commit()'s fsync finds little left: a 257 MB NIfTI's
  // fsync took 0.12 s of a 0.38 s convert. A file system that cannot (FUSE, some NFS) answers an error, ignored:
  // fsync still makes the file durable.
  constexpr std::uint64_t kWritebackStep = std::uint64_t(8) << 20;
  if (m_written - m_writebackStarted >= kWritebackStep) {
    ::sync_file_range(m_fd, off64_t(m_writebackStarted), off64_t(m_written - m_writebackStarted), SYNC_FILE_RANGE_WRITE);
    m_writebackStarted = m_written;
  }
#endif
  return core::Status::success();
}

core::Status AtomicFileWriter::commit() {
  if (m_done || m_fd < 0) return makeError(ErrorCode::WriteFailed, m_target, "the file was already committed or discarded");
  WritePhaseTimes* const times = m_options.times;
  if (m_sealer) {
    core::Status s = m_sealer->finish(m_sealed);
    if (!s) {
      discard();
      return makeError(ErrorCode::WriteFailed, m_target, s.error().detail);
    }
    s = writeRaw(m_sealed.data(), m_sealed.size());
    m_sealed.clear();
    if (!s) return s;
  }
  {
    const PhaseTimer timer(times ? &times->fsync : nullptr);
    if (m_options.sync && ::fsync(m_fd) != 0) return fail("cannot flush the temporary file to disk", errno);
  }
  const int fd = m_fd;
  m_fd = -1;
  {
    // close can report deferred write errors (NFS and similar); the temp is still unreferenced, so discard on error.
    const PhaseTimer timer(times ? &times->close : nullptr);
    if (::close(fd) != 0) return fail("cannot close the temporary file", errno);
  }
  if (m_hash) {
    const PhaseTimer timer(times ? &times->verify : nullptr);
    m_rawHashHex = toHex(m_hash->finish());
    m_hashHex = m_contentHash ? toHex(m_contentHash->finish()) : m_rawHashHex;
    auto back = sha256OfFile(m_temp);
    if (!back) return fail("cannot read the temporary file back: " + back.error().detail, EIO);
    if (*back != m_rawHashHex) {
      discard();
      return makeError(ErrorCode::WriteFailed, m_target,
                       "the file read back differs from what was written (SHA-256 " + *back + " instead of " +
                           m_rawHashHex + "): the share damaged the data; nothing was published");
    }
    if (!m_options.expectedSha256.empty() && m_hashHex != m_options.expectedSha256) {
      discard();
      return makeError(ErrorCode::Corrupt, m_target,
                       "the content's SHA-256 is " + m_hashHex + ", not the expected " + m_options.expectedSha256 +
                           " (its source changed while it was copied?): nothing was published");
    }
  }
  const PhaseTimer timer(times ? &times->publish : nullptr);
  if (core::Status s = publish(); !s) return s;
  m_done = true;
  if (m_options.sync) syncFolder(splitPath(m_target).first);
  if (times) ++times->files;
  return core::Status::success();
}

core::Status AtomicFileWriter::publish() {
  int error = 0;
  if (m_options.noReplace) {
    // link(2) publishes only if the name is free, atomically, also over NFS. Without hard links (some FUSE and SMB
    // shares) fall back to rename after checking the name is free.
    if (::link(m_temp.c_str(), m_target.c_str()) == 0) {
      ::unlink(m_temp.c_str());
      return core::Status::success();
    }
    error = errno;
    if (error == EEXIST) {
      // A link that happened can still report EEXIST: on NFS the reply is lost, the client retries, and the retry
      // finds the name taken, by us. The target is then our temporary file under its second name (the same inode):
      // the publish succeeded. Telling a taken name from that matters twice over: a save reported failed though its
      // revision exists, and a revision number claimed and then abandoned as if another writer had it.
      struct stat ours {}, there {};
      if (::stat(m_temp.c_str(), &ours) == 0 && ::stat(m_target.c_str(), &there) == 0 && ours.st_dev == there.st_dev &&
          ours.st_ino == there.st_ino) {
        ::unlink(m_temp.c_str());
        return core::Status::success();
      }
      discard();
      return makeError(ErrorCode::WriteFailed, m_target, kAlreadyExistsDetail);
    }
    if (error == EPERM || error == ENOSYS || error == EOPNOTSUPP || error == EXDEV || error == EMLINK) {
      struct stat st {};
      if (::stat(m_target.c_str(), &st) == 0) {
        discard();
        return makeError(ErrorCode::WriteFailed, m_target, kAlreadyExistsDetail);
      }
      if (::rename(m_temp.c_str(), m_target.c_str()) == 0) return core::Status::success();
      error = errno;
    }
  } else {
    if (::rename(m_temp.c_str(), m_target.c_str()) == 0) return core::Status::success();
    error = errno;
  }
  // A network share may report failure for a rename or link that happened (the reply was lost and the retried call
  // failed). With a hash, the target tells: if it holds exactly our bytes, the publish succeeded.
  if (m_hash) {
    auto there = sha256OfFile(m_target);
    if (there && *there == m_rawHashHex) {
      ::unlink(m_temp.c_str());  // gone already after a rename; a leftover after link
      return core::Status::success();
    }
  }
  return fail(m_options.noReplace ? "cannot publish the temporary file under the target name"
                                  : "cannot rename the temporary file over the target",
              error);
}

bool isAtomicTempFileName(const std::string& fileName) {
  return !fileName.empty() && fileName[0] == '.' && fileName.find(".tmp-") != std::string::npos;
}

core::Status writeFileAtomically(const std::string& targetPath, const void* data, std::size_t size,
                                 const AtomicWriteOptions& options) {
  auto writer = AtomicFileWriter::create(targetPath, options);
  if (!writer) return writer.error();
  if (core::Status s = writer->write(data, size); !s) return s;
  return writer->commit();
}

}  // namespace delineate::io
