// pacs echo | find | get | move | store over DIMSE (io/pacs/dimse_client.h); with --url, find, get and store go to
// pacs_web_commands.cpp. What both share is here (pacs_output.h).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "app/cli/pacs_output.h"
#include "io/pacs/dimse_client.h"
#include "io/studies/study_import.h"
#include "io/pacs/instance_folder.h"

namespace delineate::app::cli {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// Files and folders (their files, recursively) to send, sorted within each folder.
std::vector<std::string> expandFiles(const std::vector<std::string>& inputs) {
  std::vector<std::string> out;
  for (const std::string& in : inputs) {
    std::error_code ec;
    if (fs::is_directory(in, ec)) {
      std::vector<std::string> found;
      for (fs::recursive_directory_iterator it(in, ec), end; !ec && it != end; it.increment(ec))
        if (it->is_regular_file(ec) && it->path().filename().string()[0] != '.') found.push_back(it->path().string());
      std::sort(found.begin(), found.end());
      out.insert(out.end(), found.begin(), found.end());
    } else {
      out.push_back(in);
    }
  }
  return out;
}

io::RetrieveRequest retrieveRequestFrom(const PacsOptions& o) {
  io::RetrieveRequest r;
  r.studyInstanceUid = o.study;
  r.seriesInstanceUid = o.series;
  r.sopInstanceUids = o.instances;
  return r;
}

json orNull(int n) { return n < 0 ? json(nullptr) : json(n); }

}  // namespace

void PacsProgress::report(double fraction, const std::string& stage) {
  if (!::isatty(2)) return;
  const int percent = static_cast<int>(fraction * 100);
  if (percent == m_lastPercent) return;
  m_lastPercent = percent;
  std::fprintf(stderr, "\r%s %3d%%%s", stage.c_str(), percent, percent >= 100 ? "\n" : "");
}

int dimseNodeFrom(const PacsOptions& o, const std::string& command, io::DimseNode& node) {
  const std::size_t at = o.peer.rfind('@');
  const std::size_t colon = o.peer.rfind(':');
  if (o.peer.empty() || at == std::string::npos || colon == std::string::npos || colon < at)
    return usageError(command, "--peer takes AE@HOST:PORT (e.g. ORTHANC@pacs.example.org:4242)");
  node.aeTitle = o.peer.substr(0, at);
  node.host = o.peer.substr(at + 1, colon - at - 1);
  try {
    std::size_t used = 0;
    node.port = std::stoi(o.peer.substr(colon + 1), &used);
    if (used != o.peer.size() - colon - 1 || node.port < 1 || node.port > 65535) throw std::out_of_range("port");
  } catch (const std::exception&) {
    return usageError(command, "--peer: '" + o.peer.substr(colon + 1) + "' is not a port (1..65535)");
  }
  if (!io::isAeTitle(node.aeTitle)) return usageError(command, "--peer: '" + node.aeTitle + "' is not an AE title (1..16 characters)");
  if (!io::isAeTitle(o.callingAe)) return usageError(command, "--aet: '" + o.callingAe + "' is not an AE title");
  if (node.host.empty()) return usageError(command, "--peer: no host");
  node.tls.enabled = o.tls;
  node.tls.caFile = o.caFile;
  node.tls.certificateFile = o.certFile;
  node.tls.privateKeyFile = o.tlsKeyFile;
  if (o.tls && o.caFile.empty()) return usageError(command, "--tls needs --ca (the peer's certificate is always verified)");
  if (o.certFile.empty() != o.tlsKeyFile.empty()) return usageError(command, "--cert and --key go together");
  node.dimseTimeoutSeconds = o.timeout;
  node.connectTimeoutSeconds = std::min(o.timeout, 30);
  node.acseTimeoutSeconds = std::min(o.timeout, 30);
  return 0;
}

io::QueryKeys queryKeysFrom(const PacsOptions& o, io::QueryLevel& level) {
  level = o.level == "patient" ? io::QueryLevel::Patient
          : o.level == "series" ? io::QueryLevel::Series
          : o.level == "instance" ? io::QueryLevel::Instance
                                  : io::QueryLevel::Study;
  io::QueryKeys k;
  k.patientId = o.patientId;
  k.patientName = o.patientName;
  k.patientBirthDate = o.birthDate;
  k.studyDate = o.studyDate;
  k.modality = o.modality;
  if (level == io::QueryLevel::Study) k.studyDescription = o.description;
  else k.seriesDescription = o.description;
  k.accessionNumber = o.accession;
  k.studyInstanceUid = o.studyUid;
  k.seriesInstanceUid = o.seriesUid;
  k.limit = o.limit;
  return k;
}

void printMatches(const std::vector<io::QueryMatch>& matches, bool asJson) {
  if (asJson) {
    json a = json::array();
    for (const auto& m : matches)
      a.push_back({{"level", io::queryLevelName(m.level)},
                   {"patientId", m.patientId},
                   {"patientName", m.patientName},
                   {"patientBirthDate", m.patientBirthDate},
                   {"patientSex", m.patientSex},
                   {"studyInstanceUid", m.studyInstanceUid},
                   {"studyDate", m.studyDate},
                   {"studyTime", m.studyTime},
                   {"studyDescription", m.studyDescription},
                   {"accessionNumber", m.accessionNumber},
                   {"modalitiesInStudy", m.modalitiesInStudy},
                   {"seriesInstanceUid", m.seriesInstanceUid},
                   {"seriesNumber", m.seriesNumber},
                   {"seriesDescription", m.seriesDescription},
                   {"modality", m.modality},
                   {"sopInstanceUid", m.sopInstanceUid},
                   {"sopClassUid", m.sopClassUid},
                   {"instanceNumber", m.instanceNumber},
                   {"studySeries", orNull(m.studySeries)},
                   {"instances", orNull(m.instances)},
                   {"characterSet", m.characterSet}});
    std::printf("%s\n", a.dump(2).c_str());
    return;
  }
  const auto count = [](int n) { return n < 0 ? std::string("-") : std::to_string(n); };
  for (const auto& m : matches) {
    switch (m.level) {
      case io::QueryLevel::Patient:
        std::printf("%-20s  %-32s  %-8s  %-3s  %s studies' series, %s instances\n", m.patientId.c_str(),
                    m.patientName.c_str(), m.patientBirthDate.c_str(), m.patientSex.c_str(), count(m.studySeries).c_str(),
                    count(m.instances).c_str());
        break;
      case io::QueryLevel::Study:
        std::printf("%-8s  %-16s  %-24s  %-8s  %-30s  %3s series %5s instances  %s\n", m.studyDate.c_str(),
                    m.patientId.c_str(), m.patientName.c_str(), m.modalitiesInStudy.c_str(),
                    m.studyDescription.c_str(), count(m.studySeries).c_str(), count(m.instances).c_str(),
                    m.studyInstanceUid.c_str());
        break;
      case io::QueryLevel::Series:
        std::printf("%-4s  %-6s  %-30s  %5s instances  %s\n", m.seriesNumber.c_str(), m.modality.c_str(),
                    m.seriesDescription.c_str(), count(m.instances).c_str(), m.seriesInstanceUid.c_str());
        break;
      case io::QueryLevel::Instance:
        std::printf("%-6s  %-30s  %s\n", m.instanceNumber.c_str(), m.sopClassUid.c_str(), m.sopInstanceUid.c_str());
        break;
    }
  }
  std::printf("%zu match%s\n", matches.size(), matches.size() == 1 ? "" : "es");
}

int finishRetrieve(const PacsOptions& o, const std::string& command, const std::string& peer,
                   const io::RetrieveResult& r) {
  for (const std::string& w : r.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
  io::StudyImportReport imported;
  if (!o.share.empty()) {
    StudyOptions s;
    s.root = o.share;
    s.inputs = {r.folder};
    s.deidentify = o.deidentify;
    s.keyFile = o.pseudonymKeyFile;
    if (int rc = importIntoShare(s, command, imported)) return rc;
  }
  if (o.json) {
    json out = {{"peer", peer},
                {"retrieve",
                 {{"folder", r.folder}, {"received", r.received}, {"alreadyHere", r.alreadyHere}, {"failed", r.failed},
                  {"bytes", r.bytes}, {"warnings", r.warnings}}}};
    if (!o.share.empty()) out["import"] = json::parse(importReportJson(imported));
    std::printf("%s\n", out.dump(2).c_str());
  } else {
    std::printf("%s: retrieved %d instance(s), %.1f MB, into %s; %d already there%s\n", peer.c_str(), r.received,
                double(r.bytes) / 1e6, r.folder.c_str(), r.alreadyHere,
                r.failed ? (", " + std::to_string(r.failed) + " failed").c_str() : "");
    if (!o.share.empty()) printImportReport(imported);
  }
  if (r.failed > 0) {
    std::fprintf(stderr, "error: %s: %d instance(s) did not arrive (run again to retry them)\n", peer.c_str(), r.failed);
    return 1;
  }
  return 0;
}

int runPacsEcho(const PacsOptions& o) {
  io::DimseNode node;
  if (int rc = dimseNodeFrom(o, "pacs echo", node)) return rc;
  const auto start = std::chrono::steady_clock::now();
  core::Status s = io::dimseEcho(node, {o.callingAe});
  if (!s) return fileError(s.error());
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::printf("%s: C-ECHO answered in %.0f ms\n", node.describe().c_str(), ms);
  return 0;
}

int runPacsFind(const PacsOptions& o) {
  if (!o.url.empty()) return runWebFind(o);
  io::DimseNode node;
  if (int rc = dimseNodeFrom(o, "pacs find", node)) return rc;
  io::QueryLevel level;
  const io::QueryKeys keys = queryKeysFrom(o, level);
  PacsProgress progress;
  auto matches = io::dimseFind(node, {o.callingAe}, level, keys, &progress);
  if (!matches) {
    fileError(matches.error());
    return progress.cancelled() ? progress.exitCode() : 1;
  }
  printMatches(*matches, o.json);
  return 0;
}

int runPacsGet(const PacsOptions& o) {
  if (!o.url.empty()) return runWebGet(o);
  io::DimseNode node;
  if (int rc = dimseNodeFrom(o, "pacs get", node)) return rc;
  io::RetrieveOptions options;
  options.inFlight = o.inFlight;
  PacsProgress progress;
  auto result = io::dimseGet(node, {o.callingAe}, retrieveRequestFrom(o), o.output, options, &progress);
  if (!result) {
    fileError(result.error());
    return progress.cancelled() ? progress.exitCode() : 1;
  }
  return finishRetrieve(o, "pacs get", node.describe(), *result);
}

int runPacsStore(const PacsOptions& o) {
  if (!o.url.empty()) return runWebStore(o);
  io::DimseNode node;
  if (int rc = dimseNodeFrom(o, "pacs store", node)) return rc;
  const std::vector<std::string> files = expandFiles(o.files);
  PacsProgress progress;
  auto result = io::dimseStore(node, {o.callingAe}, files, &progress);
  if (!result) {
    fileError(result.error());
    return progress.cancelled() ? progress.exitCode() : 1;
  }
  for (const std::string& m : result->messages) std::fprintf(stderr, "warning: %s\n", m.c_str());
  if (o.json)
    std::printf("%s\n", json{{"peer", node.describe()}, {"stored", result->stored}, {"warnings", result->messages}}.dump(2).c_str());
  else
    std::printf("%s: %d file(s) stored%s\n", node.describe().c_str(), result->stored,
                result->warnings ? (", " + std::to_string(result->warnings) + " with a warning").c_str() : "");
  return 0;
}

}  // namespace delineate::app::cli
