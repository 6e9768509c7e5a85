// pacs find | get | store over DICOMweb (--url): QIDO-RS, WADO-RS, STOW-RS (io/pacs/dicomweb_client.h).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/cli/pacs_output.h"
#include "io/pacs/dicomweb_client.h"
#include "io/studies/study_import.h"

namespace delineate::app::cli {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// The credentials file: a regular file of this user that nobody else may read or write, holding one line,
// "basic USER:PASSWORD" or "bearer TOKEN". Its content is never printed.
int readCredentials(const std::string& path, io::DicomWebService& service) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return fileError(core::makeError(core::ErrorCode::NotFound, path, std::string("cannot open the credentials file: ") + std::strerror(errno)));
  struct stat st {};
  const auto refuse = [&](const std::string& why) {
    ::close(fd);
    return fileError(core::makeError(core::ErrorCode::InvalidArgument, path, why));
  };
  if (::fstat(fd, &st) != 0) return refuse(std::string("cannot inspect the credentials file: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return refuse("the credentials file is not a regular file");
  if (st.st_uid != ::geteuid()) return refuse("the credentials file is not owned by this user: refused");
  if ((st.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", unsigned(st.st_mode & 07777));
    return refuse(std::string("the credentials file is readable or writable by group or others (mode ") + mode +
                  "): refused; make it owner-only (chmod 600)");
  }
  if (st.st_size > 64 * 1024) return refuse("the credentials file is over 64 KiB: not one line of credentials");
  std::string text(std::size_t(st.st_size), '\0');
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::read(fd, &text[done], text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += std::size_t(n);
  }
  ::close(fd);
  text.resize(done);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  const std::string form = "expected one line, 'basic USER:PASSWORD' or 'bearer TOKEN'";
  if (text.find('\n') != std::string::npos) return fileError(core::makeError(core::ErrorCode::ParseError, path, form));
  if (text.compare(0, 6, "basic ") == 0) {
    const std::string rest = text.substr(6);
    const std::size_t colon = rest.find(':');
    if (colon == std::string::npos || colon == 0) return fileError(core::makeError(core::ErrorCode::ParseError, path, form));
    service.user = rest.substr(0, colon);
    service.password = rest.substr(colon + 1);
    return 0;
  }
  if (text.compare(0, 7, "bearer ") == 0 && text.size() > 7) {
    service.bearerToken = text.substr(7);
    return 0;
  }
  return fileError(core::makeError(core::ErrorCode::ParseError, path, form));
}

int serviceFrom(const PacsOptions& o, io::DicomWebService& service, const char* command) {
  if (o.url.compare(0, 7, "http://") != 0 && o.url.compare(0, 8, "https://") != 0)
    return usageError(command, "--url must start with http:// or https://");
  service.baseUrl = o.url;
  service.tls.enabled = o.url.compare(0, 8, "https://") == 0;
  service.tls.caFile = o.caFile;
  service.tls.certificateFile = o.certFile;
  service.tls.privateKeyFile = o.tlsKeyFile;
  service.connectTimeoutSeconds = std::min(o.timeout, 30);
  service.requestTimeoutSeconds = o.timeout;
  if (!o.credentials.empty()) return readCredentials(o.credentials, service);
  return 0;
}

int failed(const core::Error& error, const PacsProgress& progress) {
  fileError(error);
  return error.code == core::ErrorCode::Cancelled && progress.cancelled() ? progress.exitCode() : 1;
}

bool looksLikeDicom(const fs::path& file) {
  std::FILE* f = std::fopen(file.c_str(), "rb");
  if (!f) return false;
  char b[132];
  const bool yes = std::fread(b, 1, sizeof b, f) == sizeof b && std::memcmp(b + 128, "DICM", 4) == 0;
  std::fclose(f);
  return yes;
}

}  // namespace

int runWebFind(const PacsOptions& o) {
  io::DicomWebService service;
  if (int rc = serviceFrom(o, service, "pacs find")) return rc;
  io::QueryLevel level;
  const io::QueryKeys keys = queryKeysFrom(o, level);
  PacsProgress progress;
  auto matches = io::dicomWebFind(service, level, keys, &progress);
  if (!matches) return failed(matches.error(), progress);
  printMatches(*matches, o.json);
  return 0;
}

int runWebGet(const PacsOptions& o) {
  io::DicomWebService service;
  if (int rc = serviceFrom(o, service, "pacs get")) return rc;
  if ((o.deidentify || !o.pseudonymKeyFile.empty()) && o.share.empty())
    return usageError("pacs get", "--deidentify and --key-file need --share");
  if (o.deidentify != !o.pseudonymKeyFile.empty()) return usageError("pacs get", "--deidentify and --key-file go together");
  if (!o.instances.empty() && o.series.empty()) return usageError("pacs get", "--instance needs --series");
  io::RetrieveRequest request;
  request.studyInstanceUid = o.study;
  request.seriesInstanceUid = o.series;
  request.sopInstanceUids = o.instances;
  io::RetrieveOptions options;
  options.inFlight = o.inFlight;
  PacsProgress progress;
  auto result = io::dicomWebRetrieve(service, request, o.output, options, &progress);
  if (!result) return failed(result.error(), progress);
  return finishRetrieve(o, "pacs get", service.describe(), *result);
}

int runWebStore(const PacsOptions& o) {
  io::DicomWebService service;
  if (int rc = serviceFrom(o, service, "pacs store")) return rc;
  // Folders give their DICOM files (by the DICM mark); files named one by one must all be DICOM.
  std::vector<std::string> files;
  for (const auto& input : o.files) {
    std::error_code ec;
    if (fs::is_directory(input, ec)) {
      std::vector<std::string> found;
      for (fs::recursive_directory_iterator it(input, ec), end; !ec && it != end; it.increment(ec))
        if (it->is_regular_file(ec) && looksLikeDicom(it->path())) found.push_back(it->path().string());
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else {
      files.push_back(input);
    }
  }
  if (files.empty()) return usageError("pacs store", "no DICOM files in the given folders");
  PacsProgress progress;
  auto stored = io::dicomWebStore(service, files, &progress);
  if (!stored) return failed(stored.error(), progress);
  for (const auto& m : stored->messages) std::fprintf(stderr, "warning: %s\n", m.c_str());
  if (o.json) {
    std::printf("%s\n", json{{"stored", stored->stored}, {"warnings", stored->warnings}, {"messages", stored->messages}}
                            .dump(2)
                            .c_str());
  } else {
    std::printf("stored %d file(s) at %s%s\n", stored->stored, service.describe().c_str(),
                stored->warnings ? (", " + std::to_string(stored->warnings) + " with warnings").c_str() : "");
  }
  return 0;
}

}  // namespace delineate::app::cli
