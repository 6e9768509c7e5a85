#pragma once
// Files opened by path below io (inference: checkpoints, their sidecars, a training run's weights and optimizer
// state), read and written through the program's FileSource, so that what io seals at rest (io/base/sealed_file.h)
// reads as its content and a run's outputs are sealed as they are written, without the engines reaching io. Each
// program installs io's source at start-up (io/base/sealed_stream.h); without one, files are read and written as
// they are (the engine's own tests, a program that keeps nothing sealed).

#include <cstddef>
#include <istream>
#include <memory>
#include <string>

#include "core/error.h"

namespace delineate::core {

// A file being written: every byte given, then finish() (flushed, synced and closed; the caller renames it into
// place). Dropped without finish(), what was written is left for the caller to remove.
class OutputFile {
 public:
  virtual ~OutputFile() = default;
  virtual Status write(const void* data, std::size_t size) = 0;
  virtual Status finish() = 0;
};

class FileSource {
 public:
  virtual ~FileSource() = default;
  // The file's content as its owner's readers see it (a sealed file decrypted as it is read, seekable); errors name
  // the path: not found, sealed under a key this user does not hold, a damaged header. A damaged chunk met later
  // fails the stream (its caller names the file).
  virtual Result<std::unique_ptr<std::istream>> openRead(const std::string& path) const = 0;
  // A new file at `path` (replacing one), readable by its owner only, sealed where the program seals what it keeps.
  virtual Result<std::unique_ptr<OutputFile>> create(const std::string& path) const = 0;
};

// The process's source (null: none installed). Set once at start-up, before threads read it; the VISTA-3D plugin
// gets its host's through its API (inference/engine_plugin.h).
void setFileSource(std::shared_ptr<const FileSource> source);
std::shared_ptr<const FileSource> fileSource();

// Through the installed source, else std::ifstream: the content of `path`. NotFound naming the path when it cannot
// be opened.
Result<std::unique_ptr<std::istream>> openInputFile(const std::string& path);
// The whole content of `path` as text (a sidecar, a JSON record): errors as openInputFile, ReadFailed for a stream
// that fails part way (a damaged sealed chunk).
Result<std::string> readInputFile(const std::string& path);

}  // namespace delineate::core
