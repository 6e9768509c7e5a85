// model list / fetch / register / path: model weights on this machine (io/models/model_store.h).
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "io/cluster/process.h"
#include "io/models/model_store.h"

namespace delineate::app::cli {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The installed list (../share/delineate/models/ from this program); a program of a build tree reads the source
// tree's.
std::string defaultKnownList() {
  const fs::path exe = io::currentExecutablePath();
  const fs::path installed = exe.parent_path().parent_path() / "share/delineate/models/known_models.json";
  if (fs::exists(installed)) return installed.string();
#if defined(DELINEATE_BUILD_ROOT) && defined(DELINEATE_SOURCE_ROOT)
  const std::string root = fs::weakly_canonical(DELINEATE_BUILD_ROOT).string() + "/";
  if (exe.string().rfind(root, 0) == 0) return std::string(DELINEATE_SOURCE_ROOT) + "/resources/models/known_models.json";
#endif
  return installed.string();
}

core::Result<std::vector<io::KnownModel>> knownModels(const std::string& file) {
  return io::readKnownModels(file.empty() ? defaultKnownList() : file);
}

const io::KnownModel* findKnown(const std::vector<io::KnownModel>& known, const std::string& name) {
  for (const auto& k : known)
    if (k.name == name) return &k;
  return nullptr;
}

std::string megabytes(std::uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MB", static_cast<double>(bytes) / 1e6);
  return text;
}

json toJson(const io::CachedModel& m) { return json::parse(io::modelRecordJson(m)); }

void printCached(const io::CachedModel& m) {
  std::printf("%s: %s\n  SHA-256 %s (%s)\n  %s, %s %s%s%s\n", m.name.c_str(), m.path.c_str(), m.sha256.c_str(),
              m.verified ? "verified against the published hash" : "not verified: no published hash was given",
              megabytes(m.size).c_str(), m.source == "download" ? "downloaded" : "registered", m.when.c_str(),
              m.licence.empty() ? "" : "\n  licence: ", m.licence.c_str());
}

// Progress lines on stderr, one per 10 %, and the first SIGINT/SIGTERM as a cancel (the .part is kept).
class FetchProgress final : public core::ProgressSink {
 public:
  void report(double fraction, const std::string& stage) override {
    const int step = static_cast<int>(fraction * 10);
    if (stage != m_stage || step > m_step) {
      std::fprintf(stderr, "%s %d%%\n", stage.c_str(), stage == "verify" ? 100 : step * 10);
      m_stage = stage;
      m_step = step;
    }
  }
  bool cancelled() const override { return m_interrupt.cancelled(); }
  int exitCode() const { return m_interrupt.exitCode(); }

 private:
  InterruptSink m_interrupt;
  std::string m_stage;
  int m_step = -1;
};

}  // namespace

int runModelList(const ModelListOptions& o) {
  auto known = knownModels(o.known);
  if (!known) return fileError(known.error());
  auto cached = io::listCachedModels({});
  if (!cached) return fileError(cached.error());
  if (o.json) {
    json j = {{"known", json::array()}, {"cached", json::array()}, {"cache", io::defaultModelCache()}};
    for (const auto& k : *known)
      j["known"].push_back({{"name", k.name}, {"title", k.title}, {"url", k.url}, {"page", k.page},
                            {"sha256", k.sha256}, {"size", k.size}, {"licence", k.licence},
                            {"licence_url", k.licenceUrl}});
    for (const auto& m : *cached) j["cached"].push_back(toJson(m));
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  std::printf("Known public models:\n");
  for (const auto& k : *known) {
    std::printf("  %-12s %s\n  %-12s licence: %s\n  %-12s %s\n", k.name.c_str(), k.title.c_str(), "",
                k.licence.c_str(), "",
                k.url.empty() ? ("no direct download: get it from " + k.page + ", then model register").c_str()
                              : (k.url + (k.sha256.empty() ? " (no published SHA-256)" : "")).c_str());
  }
  std::printf("\nOn this machine (%s):\n", io::defaultModelCache().c_str());
  if (cached->empty()) std::printf("  none (delineate-cli model fetch NAME|URL, or model register FILE --name NAME)\n");
  for (const auto& m : *cached) printCached(m);
  return 0;
}

int runModelFetch(const ModelFetchOptions& o) {
  io::ModelDownload request;
  const bool isUrl = o.what.rfind("http://", 0) == 0 || o.what.rfind("https://", 0) == 0;
  if (isUrl) {
    if (o.name.empty()) return usageError("model fetch", "a URL needs --name (what engines will find it by)");
    request.name = o.name;
    request.url = o.what;
    request.expectedSha256 = o.sha256;
    request.licence = o.licence;
  } else {
    auto known = knownModels(o.known);
    if (!known) return fileError(known.error());
    const io::KnownModel* k = findKnown(*known, o.what);
    if (!k) {
      std::string names;
      for (const auto& m : *known) names += (names.empty() ? "" : ", ") + m.name;
      return usageError("model fetch", "'" + o.what + "' is neither a URL nor a known model (" + names + ")");
    }
    if (k->url.empty())
      return fileError(core::makeError(core::ErrorCode::NotFound, k->name,
                                       "no direct download is published: get " + k->file + " from " + k->page +
                                           " (licence: " + k->licence + "), then 'delineate-cli model register FILE "
                                           "--name " + k->name + "'"));
    request.name = o.name.empty() ? k->name : o.name;
    request.url = k->url;
    request.file = k->file;
    request.expectedSha256 = o.sha256.empty() ? k->sha256 : o.sha256;
    request.licence = k->licence;
    // What the user agrees to, before a byte is fetched.
    std::fprintf(stderr, "Model:    %s\nFrom:     %s\nLicence:  %s%s\nSize:     %s\nSHA-256:  %s\n", k->title.c_str(),
                 k->url.c_str(), k->licence.c_str(), k->licenceUrl.empty() ? "" : (" (" + k->licenceUrl + ")").c_str(),
                 k->size ? megabytes(k->size).c_str() : "not published",
                 request.expectedSha256.empty() ? "none published: the file will be recorded as unverified"
                                                : request.expectedSha256.c_str());
    if (!o.yes) {
      if (!::isatty(STDIN_FILENO))
        return usageError("model fetch", "accept the licence above with --yes (no terminal to ask on)");
      std::fprintf(stderr, "Accept the licence and download? [y/N] ");
      std::string answer;
      std::getline(std::cin, answer);
      if (answer != "y" && answer != "Y" && answer != "yes") {
        std::fprintf(stderr, "nothing downloaded\n");
        return 1;
      }
    }
  }
  if (request.expectedSha256.empty())
    std::fprintf(stderr, "warning: no SHA-256 to check %s against: it is recorded with its own hash, as unverified\n",
                 request.url.c_str());
  FetchProgress progress;
  request.progress = &progress;
  auto result = io::downloadModel(request);
  if (!result) {
    if (result.error().code == core::ErrorCode::Cancelled) {
      std::fprintf(stderr, "interrupted: %s\n", result.error().describe().c_str());
      return progress.exitCode();
    }
    return fileError(result.error());
  }
  if (o.json) {
    json j = toJson(result->model);
    j["resumed_from"] = result->resumedFrom;
    j["reconnects"] = result->reconnects;
    j["restarted"] = result->restarted;
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  if (result->resumedFrom) std::printf("resumed an earlier download at %s\n", megabytes(result->resumedFrom).c_str());
  if (result->reconnects) std::printf("the connection broke %d time(s); resumed each time\n", result->reconnects);
  if (result->restarted) std::printf("started over from the first byte once (no range support, or a stale part)\n");
  printCached(result->model);
  std::printf("engines take it as model:%s\n", result->model.name.c_str());
  return 0;
}

int runModelRegister(const ModelRegisterOptions& o) {
  std::string sha256 = o.sha256, licence = o.licence;
  // A known model's published hash and licence apply to a file registered under its name.
  if (auto known = knownModels(o.known); known) {
    if (const io::KnownModel* k = findKnown(*known, o.name)) {
      if (sha256.empty()) sha256 = k->sha256;
      if (licence.empty()) licence = k->licence;
    }
  } else if (!o.known.empty()) {
    return fileError(known.error());
  }
  auto model = io::registerModel({}, o.name, o.file, sha256, licence);
  if (!model) return fileError(model.error());
  if (o.json) {
    std::printf("%s\n", toJson(*model).dump(2).c_str());
    return 0;
  }
  printCached(*model);
  std::printf("engines take it as model:%s\n", model->name.c_str());
  return 0;
}

int runModelPath(const ModelPathOptions& o) {
  auto model = io::findCachedModel({}, o.name);
  if (!model) return fileError(model.error());
  std::printf("%s\n", model->path.c_str());
  return 0;
}

}  // namespace delineate::app::cli
