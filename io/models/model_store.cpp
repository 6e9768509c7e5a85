#include "io/models/model_store.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "io/base/atomic_file.h"
#include "io/base/file_modes.h"
#include "io/base/file_read.h"
#include "io/base/process_info.h"
#include "io/base/sealed_file.h"
#include "io/base/sha256.h"
#include "io/models/model_store_internal.h"

namespace delineate::io {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr std::uintmax_t kRecordLimit = 1 << 20;

bool isHex64(const std::string& s) {
  return s.size() == 64 && std::all_of(s.begin(), s.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

core::Error recordError(const std::string& path, const std::string& why) {
  return core::makeError(core::ErrorCode::ParseError, path, "not a model record: " + why);
}

}  // namespace

bool validModelName(const std::string& name) {
  if (name.empty() || name.size() > 64 || name[0] == '.') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
  });
}

std::string defaultModelCache() { return userCacheFolder() + "/models"; }

std::string modelRecordJson(const CachedModel& m) {
  const json j = {{"name", m.name},       {"path", m.path},     {"url", m.url},       {"sha256", m.sha256},
                  {"verified", m.verified}, {"licence", m.licence}, {"size", m.size}, {"source", m.source},
                  {"when", m.when}};
  return j.dump(2);
}

namespace models_detail {

std::string cacheOrDefault(const std::string& cache) {
  return fs::absolute(cache.empty() ? defaultModelCache() : cache).lexically_normal().string();
}

core::Status checkSha256Text(const std::string& what, const std::string& value) {
  if (value.empty() || isHex64(value)) return core::Status::success();
  return core::makeError(core::ErrorCode::InvalidArgument, what, "a SHA-256 is 64 hexadecimal digits, not '" + value + "'");
}

std::string lowerCase(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

core::Status writeRecord(const std::string& cache, const CachedModel& m) {
  const std::string folder = cache + "/" + m.name;
  if (auto s = createFolders(folder, FileAccess::Private); !s) return s;
  const std::string text = modelRecordJson(m) + "\n";
  AtomicWriteOptions options;
  options.access = FileAccess::Private;
  return writeFileAtomically(folder + "/model.json", text.data(), text.size(), options);
}

}  // namespace models_detail

core::Result<std::vector<KnownModel>> readKnownModels(const std::string& path) {
  auto text = readWholeFile(path, kRecordLimit, "known-models list");
  if (!text) return text.error();
  json j;
  try {
    j = json::parse(*text);
  } catch (const json::exception& e) {
    return core::makeError(core::ErrorCode::ParseError, path, std::string("not JSON: ") + e.what());
  }
  if (!j.is_object() || !j.contains("models") || !j["models"].is_array())
    return core::makeError(core::ErrorCode::ParseError, path, "expected {\"models\": [...]}");
  std::vector<KnownModel> out;
  for (const json& e : j["models"]) {
    KnownModel m;
    try {
      m.name = e.at("name").get<std::string>();
      m.title = e.value("title", m.name);
      m.url = e.value("url", "");
      m.page = e.value("page", "");
      m.file = e.value("file", "model.pt");
      m.sha256 = models_detail::lowerCase(e.value("sha256", ""));
      m.size = e.value("size", std::uint64_t{0});
      m.licence = e.at("licence").get<std::string>();
      m.licenceUrl = e.value("licence_url", "");
      m.description = e.value("description", "");
    } catch (const json::exception& ex) {
      return core::makeError(core::ErrorCode::ParseError, path, std::string("a model entry: ") + ex.what());
    }
    const std::string where = path + ": model '" + m.name + "'";
    if (!validModelName(m.name)) return core::makeError(core::ErrorCode::ParseError, where, "not a valid model name");
    if (!validModelName(m.file)) return core::makeError(core::ErrorCode::ParseError, where, "not a valid file name: " + m.file);
    if (!m.url.empty() && m.url.rfind("https://", 0) != 0 && m.url.rfind("http://", 0) != 0)
      return core::makeError(core::ErrorCode::ParseError, where, "its URL is not http(s): " + m.url);
    if (m.url.empty() && m.page.empty())
      return core::makeError(core::ErrorCode::ParseError, where, "neither a URL nor a page to get it from");
    if (auto s = models_detail::checkSha256Text(where, m.sha256); !s) return s.error();
    out.push_back(std::move(m));
  }
  return out;
}

namespace {

core::Result<CachedModel> readRecord(const std::string& cache, const std::string& name) {
  const std::string path = cache + "/" + name + "/model.json";
  auto text = readWholeFile(path, kRecordLimit, "model record");
  if (!text) return text.error();
  CachedModel m;
  try {
    const json j = json::parse(*text);
    m.name = j.at("name").get<std::string>();
    m.path = j.at("path").get<std::string>();
    m.url = j.value("url", "");
    m.sha256 = j.at("sha256").get<std::string>();
    m.verified = j.value("verified", false);
    m.licence = j.value("licence", "");
    m.size = j.at("size").get<std::uint64_t>();
    m.source = j.at("source").get<std::string>();
    m.when = j.value("when", "");
  } catch (const json::exception& e) {
    return recordError(path, e.what());
  }
  if (m.name != name) return recordError(path, "it names '" + m.name + "', in the folder of '" + name + "'");
  if (!isHex64(m.sha256)) return recordError(path, "its SHA-256 is not 64 hexadecimal digits");
  if (m.source != "download" && m.source != "register") return recordError(path, "unknown source '" + m.source + "'");
  if (!fs::path(m.path).is_absolute()) return recordError(path, "its file is not an absolute path");
  // A downloaded model lies in its own folder: an edited record cannot point the engine at another file.
  if (m.source == "download" && fs::path(m.path).parent_path() != fs::path(cache) / name)
    return recordError(path, "a downloaded model's file must lie in its folder, not at " + m.path);
  return m;
}

}  // namespace

core::Result<std::vector<CachedModel>> listCachedModels(const std::string& cacheIn) {
  const std::string cache = models_detail::cacheOrDefault(cacheIn);
  std::vector<CachedModel> out;
  std::error_code ec;
  if (!fs::exists(cache, ec)) return out;
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(cache, ec))
    if (e.is_directory() && fs::exists(e.path() / "model.json")) names.push_back(e.path().filename().string());
  if (ec) return core::makeError(core::ErrorCode::ReadFailed, cache, ec.message());
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    if (!validModelName(name)) continue;  // a folder we would never have made
    auto m = readRecord(cache, name);
    if (!m) return m.error();
    out.push_back(std::move(*m));
  }
  return out;
}

core::Result<CachedModel> findCachedModel(const std::string& cacheIn, const std::string& name) {
  const std::string cache = models_detail::cacheOrDefault(cacheIn);
  if (!validModelName(name))
    return core::makeError(core::ErrorCode::InvalidArgument, name, "not a model name (1-64 of A-Z a-z 0-9 . _ -)");
  if (!fs::exists(cache + "/" + name + "/model.json"))
    return core::makeError(core::ErrorCode::NotFound, name,
                           "no such model in " + cache + " (delineate-cli model fetch or model register)");
  auto m = readRecord(cache, name);
  if (!m) return m.error();
  std::error_code ec;
  const auto size = fs::file_size(m->path, ec);
  if (ec) return core::makeError(core::ErrorCode::NotFound, m->path, "model '" + name + "': its file is gone (" + ec.message() + ")");
  if (size != m->size)
    return core::makeError(core::ErrorCode::Corrupt, m->path,
                           "model '" + name + "': the file has " + std::to_string(size) + " bytes, " +
                               std::to_string(m->size) + " when it was recorded (changed since: register it again)");
  return m;
}

core::Result<std::string> resolveModelReference(const std::string& reference, const std::string& cache) {
  if (reference.rfind("model:", 0) != 0) return reference;
  auto m = findCachedModel(cache, reference.substr(6));
  if (!m) return m.error();
  return m->path;
}

core::Result<CachedModel> registerModel(const std::string& cacheIn, const std::string& name, const std::string& file,
                                        const std::string& expectedSha256, const std::string& licence) {
  const std::string cache = models_detail::cacheOrDefault(cacheIn);
  if (!validModelName(name))
    return core::makeError(core::ErrorCode::InvalidArgument, name, "not a model name (1-64 of A-Z a-z 0-9 . _ -)");
  if (auto s = models_detail::checkSha256Text("--sha256", expectedSha256); !s) return s.error();
  std::error_code ec;
  const fs::path absolute = fs::canonical(file, ec);
  if (ec) return core::makeError(core::ErrorCode::NotFound, file, ec.message());
  if (!fs::is_regular_file(absolute)) return core::makeError(core::ErrorCode::InvalidArgument, file, "not a regular file");
  auto hash = contentSha256(absolute.string());  // a sealed file's content, as engines read it
  if (!hash) return hash.error();
  const std::string want = models_detail::lowerCase(expectedSha256);
  if (!want.empty() && *hash != want)
    return core::makeError(core::ErrorCode::Corrupt, file,
                           "its SHA-256 is " + *hash + ", not the expected " + want + " (a different or damaged file)");
  CachedModel m;
  m.name = name;
  m.path = absolute.string();
  m.sha256 = *hash;
  m.verified = !want.empty();
  m.licence = licence;
  m.size = fs::file_size(absolute);
  m.source = "register";
  m.when = utcNowIso();
  if (auto s = models_detail::writeRecord(cache, m); !s) return s.error();
  return m;
}

}  // namespace delineate::io
