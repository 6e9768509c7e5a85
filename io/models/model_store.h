#pragma once
// Model weights on this machine (issue 44, item 6): the list of known public models, and a cache of models that
// were downloaded or registered. VISTA-3D's weights are not bundled (their licence and size); a user downloads them
// from a URL (ours or theirs) or registers a file they already have, and the engines find them by name
// (`model:NAME`).
//
// The cache: $XDG_CACHE_HOME (or ~/.cache)/delineate/models/NAME/, owner-only (0700 folders, 0600 files):
//   model.json   what the model is: name, file, URL, SHA-256, whether that hash was checked against a published one,
//                licence, size, source (download or register), when
//   FILE         a downloaded model's weights (a registered one stays where the user keeps it; model.json names it)
//   FILE.part    a download in progress or broken off: the next fetch resumes it (HTTP Range)
// A name is 1-64 of [A-Za-z0-9._-], not starting with '.' (never a path). A record naming a file elsewhere is only
// trusted for a registered model; a downloaded one must lie in its own folder.

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/progress.h"

namespace delineate::io {

// An entry of the known-models list (resources/models/known_models.json, installed to
// /usr/share/delineate/models/): where it comes from, what it may be used for.
struct KnownModel {
  std::string name;         // the cache's name for it: "vista3d"
  std::string title;        // "VISTA-3D (127 classes, CT)"
  std::string url;          // a direct download; empty where none exists (then `page` says where to get it)
  std::string page;         // where a person reads about it and gets it
  std::string file;         // the file name in the cache: "model.pt"
  std::string sha256;       // lower-case hex; empty where its publisher gives none
  std::uint64_t size = 0;   // bytes, 0 when unknown
  std::string licence;      // "NVIDIA License (non-commercial: research and evaluation only)"
  std::string licenceUrl;
  std::string description;
};

// Reads a known-models list. Errors name the file and the entry (a name that is not a valid name, a hash that is
// not 64 hex digits, a URL that is not http(s)).
core::Result<std::vector<KnownModel>> readKnownModels(const std::string& path);

struct CachedModel {
  std::string name;
  std::string path;      // the weights' absolute path
  std::string url;       // where it was downloaded from (empty when registered)
  std::string sha256;    // of the file as it was downloaded or registered
  bool verified = false; // that hash equalled a published (or given) one
  std::string licence;
  std::uint64_t size = 0;
  std::string source;    // "download" or "register"
  std::string when;      // ISO 8601 UTC
};

// A model's record as model.json holds it (JSON): what `model list --json` and the window show too.
std::string modelRecordJson(const CachedModel& model);

// This user's model cache: $XDG_CACHE_HOME (or ~/.cache)/delineate/models.
std::string defaultModelCache();
bool validModelName(const std::string& name);

// The models of a cache, by name. A damaged record is an error naming it (never skipped silently).
core::Result<std::vector<CachedModel>> listCachedModels(const std::string& cache);
// One model; errors: an invalid name, none of that name, its file gone or changed in size since it was recorded.
core::Result<CachedModel> findCachedModel(const std::string& cache, const std::string& name);
// "model:NAME" -> the cached file's path; anything else is returned as it is (a path).
core::Result<std::string> resolveModelReference(const std::string& reference, const std::string& cache = {});

struct ModelDownload {
  std::string cache;           // empty: defaultModelCache()
  std::string name;
  std::string url;             // http:// or https://
  std::string file;            // the file name in the cache (empty: the URL's last path segment, else "model.pt")
  std::string expectedSha256;  // empty: none published (the result says verified = false)
  std::string licence;
  core::ProgressSink* progress = nullptr;  // fraction of the bytes, stage "download" then "verify"; cancel
  int connectTimeoutSeconds = 30;
  int stallSeconds = 60;       // no byte for this long: the connection counts as broken
  int retries = 5;             // broken connections resumed before giving up
};

struct ModelDownloadResult {
  CachedModel model;
  std::uint64_t resumedFrom = 0;  // bytes a .part of an earlier run already held
  int reconnects = 0;             // broken connections resumed during this run
  bool restarted = false;         // the server ignored the range, or the resumed file's hash was wrong: from zero
};

// Downloads into the cache, resuming a .part an earlier run left, and resuming (HTTP Range) after a broken
// connection. The file is hashed (SHA-256) before it counts: a hash other than the expected one deletes the download
// and is an error naming the URL, both hashes and the file (when a resumed .part was the cause, the download is
// made once more from zero first). HTTP errors are named with their status; nothing replaces a model of the same
// name until the new one is complete and verified.
core::Result<ModelDownloadResult> downloadModel(const ModelDownload& request);

// Registers a file the user already has: its SHA-256 is computed (and compared with `expectedSha256` when given:
// a difference is an error naming both), and model.json records it; the file itself is not copied.
core::Result<CachedModel> registerModel(const std::string& cache, const std::string& name, const std::string& file,
                                        const std::string& expectedSha256 = {}, const std::string& licence = {});

}  // namespace delineate::io
