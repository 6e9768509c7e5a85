#include "core/file_source.h"

#include <fstream>
#include <mutex>

namespace delineate::core {

namespace {

std::mutex& sourceMutex() {
  static std::mutex m;
  return m;
}
std::shared_ptr<const FileSource>& installed() {
  static std::shared_ptr<const FileSource> source;
  return source;
}

}  // namespace

void setFileSource(std::shared_ptr<const FileSource> source) {
  std::lock_guard<std::mutex> lock(sourceMutex());
  installed() = std::move(source);
}

std::shared_ptr<const FileSource> fileSource() {
  std::lock_guard<std::mutex> lock(sourceMutex());
  return installed();
}

Result<std::unique_ptr<std::istream>> openInputFile(const std::string& path) {
  if (auto source = fileSource()) return source->openRead(path);
  auto file = std::make_unique<std::ifstream>(path, std::ios::binary);
  if (!*file) return makeError(ErrorCode::NotFound, path, "cannot open the file");
  return std::unique_ptr<std::istream>(std::move(file));
}

Result<std::string> readInputFile(const std::string& path) {
  auto in = openInputFile(path);
  if (!in) return in.error();
  // istream::read: a stream buffer that fails part way (a sealed chunk that fails its check) sets badbit rather than
  // ending the text early.
  std::string text;
  char buffer[1 << 16];
  while (**in) {
    (*in)->read(buffer, sizeof buffer);
    text.append(buffer, static_cast<std::size_t>((*in)->gcount()));
  }
  if ((*in)->bad())
    return makeError(ErrorCode::ReadFailed, path, "could not be read to its end (damaged, or a read error)");
  return text;
}

}  // namespace delineate::core
